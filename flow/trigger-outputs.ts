// The `Trigger` member of the formula context, for both doors: the OData route
// (a JSON payload) and the provider route (a provider's own request). Pure and
// sandbox-safe: the workflow builds it once per execution from its input, so
// replays build the same object.
import { parseExactJson, rememberSpelling, type FormulaContext } from './formula/index.ts';
import { FORM_MEDIA_TYPE, isJsonMediaType, type DirectTriggerRequest, type FlowExecutionInput } from './index.ts';

type TriggerOutputs = FormulaContext['Trigger'];
type Decoded = Record<string, string | string[]>;

/** The patch marking executions whose payload values are exact (Temporal `patched()`). */
export const EXACT_VALUES_PATCH = 'flowhook-exact-payload-values';

/**
 * `exactValues`: parse JSON with parseExactJson, so values handed on unchanged
 * are written as sent (the payload reaches the flow exactly as sent). Executions started by a release
 * without it replay with JSON.parse (flow-workflow.ts decides with patched()),
 * so what they already sent is sent the same way again.
 */
export function triggerOutputs(input: FlowExecutionInput, options: { exactValues?: boolean } = {}): TriggerOutputs {
  const exact = options.exactValues ?? false;
  const parse = exact ? parseExactJson : (text: string): unknown => JSON.parse(text);
  const common = {
    Activity: input.trigger.activity,
    Description: input.trigger.description,
    ...(input.coalesced && { Coalesced: { count: input.coalesced.count, payloads: [...input.coalesced.payloads] } }),
    ...(input.batch && { Batch: input.batch.map((call) => ({ ...call })) }),
  };
  const trigger = input.direct
    ? { ...directOutputs(input.direct, input.payloadJson, parse), ...common }
    : { Payload: parse(input.payloadJson), PayloadJson: input.payloadJson, ...common };
  return exact ? keepRootSpelling(trigger) : trigger;
}

/** A payload that is a bare number (`12345678901234567890`) has no holder of its own: Trigger holds its spelling. */
function keepRootSpelling(trigger: TriggerOutputs): TriggerOutputs {
  if (typeof trigger.Payload === 'number') rememberSpelling(trigger, 'Payload', trigger.PayloadJson.trim());
  if (typeof trigger.Json === 'number') rememberSpelling(trigger, 'Json', trigger.PayloadJson.trim());
  return trigger;
}

/**
 * Provider route: `Body` is the exact text (or base64 for bytes that are not
 * UTF-8), `Json`/`Form` are present only when the content type says so and the
 * body reads as one, and `Payload` is the richest of them (Json ?? Form ?? Body).
 */
function directOutputs(
  direct: DirectTriggerRequest,
  body: string,
  parse: (text: string) => unknown,
): Omit<TriggerOutputs, 'Activity' | 'Description'> {
  const text = direct.bodyEncoding === 'text';
  const json = text && isJsonMediaType(direct.contentType) ? parseJson(body, parse) : undefined;
  const form = text && direct.contentType === FORM_MEDIA_TYPE ? decodeUrlEncoded(body) : undefined;
  return {
    Payload: json ?? form ?? body,
    PayloadJson: body,
    Body: body,
    BodyEncoding: direct.bodyEncoding,
    ...(json !== undefined ? { Json: json } : {}),
    ...(form !== undefined ? { Form: form } : {}),
    Headers: direct.headers,
    Query: decodeUrlEncoded(direct.query),
    Method: direct.method,
    Provider: {
      Scheme: direct.provider.scheme,
      ...(direct.provider.eventId !== undefined ? { EventId: direct.provider.eventId } : {}),
    },
  };
}

/** Text that claims to be JSON but is not stays available as Body (and Payload): a provider's typo must not lose the call. */
function parseJson(body: string, parse: (text: string) => unknown): unknown {
  try {
    return parse(body);
  } catch {
    return undefined;
  }
}

/**
 * `a=1&b=x+y&a=2` → `{a: ["1", "2"], b: "x y"}` (WHATWG urlencoded rules: `+`
 * is a space, percent escapes are UTF-8). A repeated key becomes an array in
 * order; an escape that is not valid UTF-8 is kept as written rather than failing.
 */
export function decodeUrlEncoded(text: string): Decoded {
  const entries: [string, string | string[]][] = [];
  const index = new Map<string, number>();
  for (const part of text.split('&')) {
    if (part === '') continue;
    const equals = part.indexOf('=');
    const name = decodeComponent(equals < 0 ? part : part.slice(0, equals));
    const value = equals < 0 ? '' : decodeComponent(part.slice(equals + 1));
    const at = index.get(name);
    if (at === undefined) {
      index.set(name, entries.length);
      entries.push([name, value]);
    } else {
      const entry = entries[at]!;
      if (Array.isArray(entry[1])) entry[1].push(value);
      else entry[1] = [entry[1], value];
    }
  }
  // fromEntries defines own properties, so a key such as `__proto__` stays data.
  return Object.fromEntries(entries);
}

function decodeComponent(raw: string): string {
  const spaced = raw.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
  }
}
