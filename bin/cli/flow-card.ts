// The flow card of `flowhook flow show` (the trigger "When a webhook is
// received" and its fields), with the "Webhook Call" section only once the flow is published.
// The card never shows a secret: the engine keeps only its hash, and the
// sample body carries a `<secret>` placeholder.
import type {
  GetFlowResponse,
  ProviderRoute,
  WebhookCall,
} from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { ResponseMode, type Step, type WebhookTrigger } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { card, shellArg, shellQuote, yesNo } from './output.ts';

// The trigger's defaults, shown when the file leaves the field out.
const DEFAULT_SYNC_TIMEOUT_SECONDS = 30;
const DEFAULT_STATUS_CODE = 200;
const DEFAULT_CONTENT_TYPE = 'application/json';

export function flowCard(response: GetFlowResponse): string[] {
  const summary = response.flow;
  const definition = response.definition;
  const trigger = definition?.trigger?.kind.case === 'webhook' ? definition.trigger.kind.value : undefined;
  const waits = trigger?.responseMode === ResponseMode.WAIT_FOR_RESPONSE_STEP;
  const published = (summary?.publishedVersion ?? 0) > 0;
  const name = summary?.name ?? definition?.name ?? '';
  const company = summary?.company ?? definition?.company ?? '';
  const activity = summary?.activity || trigger?.activity || '';

  const lines = [
    `Flow "${name}"`,
    ...card([
      ['Description', summary?.description || definition?.description || '—'],
      ['Company', company],
      [
        'Trigger',
        trigger ? `When a webhook is received${trigger.description ? ` — ${trigger.description}` : ''}` : 'none',
      ],
      ['Activity', activity || '—'],
      ['Response mode', waits ? 'Wait for Response step' : 'Instant return'],
      ['Sync timeout', waits ? `${trigger?.syncTimeoutSeconds ?? DEFAULT_SYNC_TIMEOUT_SECONDS} s` : undefined],
      // The default response has an empty body whatever its content type says; say so, so nobody parses "" as JSON.
      [
        'Default response',
        `${trigger?.defaultResponseStatusCode ?? DEFAULT_STATUS_CODE}, ${trigger?.defaultResponseContentType ?? DEFAULT_CONTENT_TYPE}, empty body`,
      ],
      ['Do not log payload', yesNo(trigger?.doNotLogPayload ?? false)],
      [
        'Versions',
        `latest ${summary?.latestVersion ?? 0}, ${published ? `published ${summary?.publishedVersion}` : 'not published'}`,
      ],
      [
        'Paused',
        summary?.pausedAt
          ? `since ${timestampDate(summary.pausedAt).toISOString()}: executions wait (flowhook flow resume ${shellArg(company)} ${shellArg(name)})`
          : undefined,
      ],
      ['Flow control', trigger ? flowControlText(trigger) : undefined],
      [
        'Secret',
        summary?.hasSecret
          ? `set (new one: flowhook secret rotate ${shellArg(company)} ${shellArg(activity)})`
          : 'not set',
      ],
    ]),
    '',
    `Steps (version ${summary?.latestVersion ?? '?'})`,
    ...stepLines(definition?.steps ?? [], '  '),
  ];
  if (published && response.webhookCall) lines.push('', ...webhookCallSection(response.webhookCall, activity));
  else
    lines.push(
      '',
      `Not published: the endpoint and a sample call appear here once it is (flowhook flow publish ${shellArg(company)} ${shellArg(name)}).`,
    );
  if (response.providerRoute)
    lines.push('', ...providerRouteSection(response.providerRoute, company, activity, published));
  return lines;
}

function stepLines(steps: Step[], indent: string): string[] {
  if (steps.length === 0) return [`${indent}(none)`];
  return steps.flatMap((step, i) => {
    const kind = step.kind;
    const head = `${indent}${i + 1}. ${kind.case ?? 'unknown'}${step.name ? ` "${step.name}"` : ''}`;
    const description = kind.value?.description ? ` — ${kind.value.description}` : '';
    const lines = [`${head}${detail(step)}${description}`];
    if (kind.case === 'if') {
      lines.push(`${indent}   then:`, ...stepLines(kind.value.then, `${indent}     `));
      if (kind.value.else.length > 0) lines.push(`${indent}   else:`, ...stepLines(kind.value.else, `${indent}     `));
    }
    return lines;
  });
}

/** The one setting that tells steps of a kind apart at a glance. */
function detail(step: Step): string {
  const kind = step.kind;
  switch (kind.case) {
    case 'respond': {
      const status = kind.value.statusCode?.kind;
      return status?.case === 'numberValue' || status?.case === 'stringValue' ? ` (${status.value})` : '';
    }
    case 'sleep':
      return kind.value.duration ? ` (${kind.value.duration})` : '';
    case 'waitUntil':
      return kind.value.until ? ` (until ${kind.value.until})` : '';
    case 'httpRequest':
      return ` (${kind.value.method || 'GET'} ${kind.value.url})`;
    case 'if':
      return kind.value.condition ? ` (${kind.value.condition})` : '';
    case 'waitForCallback':
      return ` (${kind.value.key ? `key ${kind.value.key}` : 'callback URL'}, timeout ${kind.value.timeout})`;
    default:
      return '';
  }
}

function webhookCallSection(call: WebhookCall, activity: string): string[] {
  const body = placeholderBody(call.sampleBody, activity);
  return [
    'Webhook Call',
    ...card([
      ['Method', call.method || 'POST'],
      ['URL', call.url],
      ['Body', body],
    ]),
    '',
    '  curl template (fill in the credentials and the flow secret):',
    `    curl -sS -X ${call.method || 'POST'} ${shellQuote(call.url)} \\`,
    `      -u '<user>:<web service access key>' \\`,
    `      -H 'Content-Type: application/json' \\`,
    `      -d ${shellQuote(body)}`,
  ];
}

/**
 * `trigger.webhook.direct`: where the provider posts, and whether it can be
 * verified yet — without a hook secret the route refuses every request, so
 * the command that sets one is spelled out (the secret itself never is).
 */
function providerRouteSection(route: ProviderRoute, company: string, activity: string, published: boolean): string[] {
  const setCommand = `flowhook hook-secret set ${shellArg(company)} ${shellArg(activity || '<activity>')}`;
  return [
    'Provider route',
    ...card([
      ['Method', 'POST'],
      ['URL', published ? route.url : `${route.url} (answers once the flow is published)`],
      ['Verification', route.scheme || '—'],
      [
        'Signing secret',
        route.hookSecretSet ? `set (rotate: ${setCommand} --overlap 24h)` : `no signing secret yet: ${setCommand}`,
      ],
    ]),
  ];
}

/** The sample body with the secret replaced by `<secret>`, whatever the engine sent. */
function placeholderBody(sample: string, activity: string): string {
  let body: Record<string, unknown> = { activity, payload: {} };
  try {
    const parsed: unknown = JSON.parse(sample);
    if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
      body = parsed as Record<string, unknown>;
  } catch {
    // Not JSON: fall back to the request's shape, {activity, secret, payload}.
  }
  return JSON.stringify({ activity: body.activity ?? activity, secret: '<secret>', payload: body.payload ?? {} });
}

/** The trigger's flow control in one line, or undefined when it has none. */
function flowControlText(trigger: WebhookTrigger): string | undefined {
  const key = (text: string) => (text ? ` per key ${text}` : '');
  const parts = [
    trigger.concurrency && `concurrency ${trigger.concurrency.limit ?? 1}${key(trigger.concurrency.key)}`,
    trigger.throttle &&
      `throttle ${trigger.throttle.perSecond}/s (burst ${trigger.throttle.burst ?? 1})${key(trigger.throttle.key)}`,
    trigger.debounce &&
      `debounce ${trigger.debounce.period}${trigger.debounce.maxWait ? ` (at most ${trigger.debounce.maxWait})` : ''}${key(trigger.debounce.key)}`,
    trigger.batch && `batch of up to ${trigger.batch.maxSize} or ${trigger.batch.maxWait}${key(trigger.batch.key)}`,
    trigger.idempotencyKey && `idempotency key ${trigger.idempotencyKey} for ${trigger.idempotencyWindow || '24h'}`,
    trigger.priority !== undefined && `priority ${trigger.priority}`,
  ].filter((part): part is string => Boolean(part));
  return parts.length > 0 ? parts.join('; ') : undefined;
}
