// The flow being edited on the card: a flow file's JSON (FlowJson, the
// protobuf JSON mapping the engine and the CLI read), changed immutably field
// by field. The trigger's defaults and rules are the spec's (§2.3, §2.4):
// Instant return, Sync Timeout 30 s (1..600, only for Wait for Response step),
// default response 200 application/json, status codes 200..599, activities
// stored lowercase. Pure.
import type {
  FlowJson,
  RespondStepJson,
  Step,
  StepJson,
  WebhookTriggerJson,
} from '../../../proto/gen/flowhook/flow/v1/flow_pb.js';

export const DEFAULT_SYNC_TIMEOUT_SECONDS = 30;
export const MAX_SYNC_TIMEOUT_SECONDS = 600;
export const DEFAULT_STATUS_CODE = 200;
export const DEFAULT_CONTENT_TYPE = 'application/json';

export type ResponseModeName = 'INSTANT_RETURN' | 'WAIT_FOR_RESPONSE_STEP';

/** A new flow: the webhook trigger with its defaults and one Respond to Webhook step to start from. */
export function newFlow(company: string): FlowJson {
  return {
    company,
    name: '',
    description: '',
    trigger: {
      webhook: {
        description: '',
        activity: '',
        responseMode: 'INSTANT_RETURN',
        defaultResponseStatusCode: DEFAULT_STATUS_CODE,
        defaultResponseContentType: DEFAULT_CONTENT_TYPE,
      },
    },
    steps: [
      {
        respond: {
          description: 'Acknowledge the call',
          statusCode: DEFAULT_STATUS_CODE,
          contentType: DEFAULT_CONTENT_TYPE,
          body: '${ {"received": true} }',
        },
      },
    ],
  };
}

export function triggerOf(flow: FlowJson): WebhookTriggerJson {
  return flow.trigger?.webhook ?? {};
}

export function withTrigger(flow: FlowJson, patch: Partial<WebhookTriggerJson>): FlowJson {
  const webhook: Record<string, unknown> = { ...triggerOf(flow), ...patch };
  for (const [key, value] of Object.entries(webhook)) if (value === undefined) delete webhook[key];
  return { ...flow, trigger: { ...flow.trigger, webhook: webhook as WebhookTriggerJson } };
}

export function responseModeOf(flow: FlowJson): ResponseModeName {
  return triggerOf(flow).responseMode === 'WAIT_FOR_RESPONSE_STEP' ? 'WAIT_FOR_RESPONSE_STEP' : 'INSTANT_RETURN';
}

/** The flow's name: as given, or (a new flow left unnamed) its activity. */
export function flowNameOf(flow: FlowJson): string {
  return flow.name?.trim() || (triggerOf(flow).activity ?? '').trim().toLowerCase();
}

/** The flow as it is saved: a name, the activity lowercase and trimmed. */
export function normalised(flow: FlowJson): FlowJson {
  const activity = triggerOf(flow).activity;
  const named = { ...flow, name: flowNameOf(flow) };
  return activity === undefined ? named : withTrigger(named, { activity: activity.trim().toLowerCase() });
}

// ── fields ──

/** A Status Code as typed: a number, a SmartFormula (`${…}`, checked at publish), or empty. */
export function parseStatusCode(text: string): number | string | undefined {
  const trimmed = text.trim();
  if (trimmed === '') return undefined;
  return /^-?\d+$/.test(trimmed) ? Number(trimmed) : trimmed;
}

/** A Respond step's Status Code may be a SmartFormula (checked when it runs); the trigger's default may not. */
export function statusCodeProblem(value: unknown, label = 'Status Code', formulas = true): string | undefined {
  if (value === undefined || (formulas && typeof value === 'string' && value.includes('${'))) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value))
    return `${label} must be a whole number in 200..599${formulas ? ', or a SmartFormula ${…}' : ''}.`;
  if (value >= 100 && value < 200) return `${label} ${value} is refused: 1xx codes are not allowed (use 200..599).`;
  if (value < 200 || value > 599) return `${label} must be in 200..599.`;
  return undefined;
}

export function syncTimeoutProblem(value: number | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < 1 || value > MAX_SYNC_TIMEOUT_SECONDS)
    return `Sync Timeout must be 1..${MAX_SYNC_TIMEOUT_SECONDS} seconds.`;
  return undefined;
}

/** Every problem the card finds without asking the engine, by field path (the engine's spelling). */
export function localProblems(flow: FlowJson): Map<string, string> {
  const problems = new Map<string, string>();
  const trigger = triggerOf(flow);
  const add = (path: string, problem: string | undefined) => {
    if (problem) problems.set(path, problem);
  };
  if (responseModeOf(flow) === 'WAIT_FOR_RESPONSE_STEP')
    add('trigger.webhook.syncTimeoutSeconds', syncTimeoutProblem(trigger.syncTimeoutSeconds));
  add(
    'trigger.webhook.defaultResponseStatusCode',
    statusCodeProblem(trigger.defaultResponseStatusCode, 'Default Response Status Code', false),
  );
  for (const item of flatOutline(outline(flow.steps ?? []))) {
    if (item.kind === 'respond')
      add(
        `${item.path}.respond.statusCode`,
        statusCodeProblem((stepAt(flow, item.path)?.respond as RespondStepJson).statusCode),
      );
  }
  return problems;
}

// ── steps ──

/**
 * A step's kind: a case of the proto's `Step.kind` oneof (flow.proto), which is
 * also the step's key in a flow file. Typed by the generated code, so a kind the
 * proto gains and the card does not name is a type error here, not an "Unknown step".
 */
export type StepKind = NonNullable<Step['kind']['case']>;

/** Each kind's name on the card. */
export const STEP_KINDS: Record<StepKind, string> = {
  respond: 'Respond to Webhook',
  sleep: 'Sleep',
  waitUntil: 'Wait until',
  set: 'Set variables',
  if: 'If',
  httpRequest: 'HTTP request',
  log: 'Log',
  fail: 'Fail',
  record: 'Record',
  waitForCallback: 'Wait for callback',
};

export function stepKindOf(step: StepJson): StepKind | undefined {
  return Object.keys(step).find((key): key is StepKind => Object.hasOwn(STEP_KINDS, key));
}

export interface StepOutline {
  /** `steps[1].if.then[0]`: the path publish problems use. */
  path: string;
  kind: StepKind | undefined;
  description: string;
  /** The one setting that tells steps of a kind apart (a status code, a duration). */
  detail: string;
  branches: { label: 'then' | 'else'; steps: StepOutline[] }[];
}

export function outline(steps: readonly StepJson[], base = 'steps'): StepOutline[] {
  return steps.map((step, index) => {
    const path = `${base}[${index}]`;
    const kind = stepKindOf(step);
    const body = (kind ? (step as Record<string, unknown>)[kind] : undefined) as Record<string, unknown> | undefined;
    const branches: StepOutline['branches'] = [];
    if (kind === 'if') {
      for (const label of ['then', 'else'] as const) {
        const inner = (body?.[label] as StepJson[] | undefined) ?? [];
        if (inner.length > 0 || label === 'then')
          branches.push({ label, steps: outline(inner, `${path}.if.${label}`) });
      }
    }
    return {
      path,
      kind,
      description: typeof body?.description === 'string' ? body.description : '',
      detail: detailOf(kind, body),
      branches,
    };
  });
}

export function flatOutline(items: readonly StepOutline[]): StepOutline[] {
  return items.flatMap((item) => [item, ...item.branches.flatMap((branch) => flatOutline(branch.steps))]);
}

function detailOf(kind: StepKind | undefined, body: Record<string, unknown> | undefined): string {
  if (!body) return '';
  switch (kind) {
    case 'respond':
      return body.statusCode === undefined ? String(DEFAULT_STATUS_CODE) : String(body.statusCode);
    case 'sleep':
      return typeof body.duration === 'string' ? body.duration : '';
    case 'waitUntil':
      return typeof body.until === 'string' ? `until ${body.until}` : '';
    case 'httpRequest':
      return `${typeof body.method === 'string' ? body.method : 'GET'} ${typeof body.url === 'string' ? body.url : ''}`.trim();
    case 'if':
      return typeof body.condition === 'string' ? body.condition : '';
    default:
      return '';
  }
}

type Segment = string | number;

/** `steps[1].if.then[0]` → ['steps', 1, 'if', 'then', 0]. */
export function stepPathSegments(path: string): Segment[] {
  const segments: Segment[] = [];
  for (const match of path.matchAll(/([A-Za-z]+)|\[(\d+)\]/g)) segments.push(match[1] ?? Number(match[2]));
  return segments;
}

export function stepAt(flow: FlowJson, path: string): StepJson | undefined {
  let current: unknown = flow;
  for (const segment of stepPathSegments(path)) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string | number, unknown>)[segment];
  }
  return current as StepJson | undefined;
}

/** The flow with the step at `path` replaced, or removed when `step` is undefined. */
export function withStepAt(flow: FlowJson, path: string, step: StepJson | undefined): FlowJson {
  return updateList(flow, stepPathSegments(path), (list, index) => {
    if (step === undefined) list.splice(index, 1);
    else list[index] = step;
    return list;
  }) as FlowJson;
}

/** The flow with `step` added at the end of the top-level steps; returns its path. */
export function withStepAdded(flow: FlowJson, step: StepJson): { flow: FlowJson; path: string } {
  const steps = [...(flow.steps ?? []), step];
  return { flow: { ...flow, steps }, path: `steps[${steps.length - 1}]` };
}

/** Copies along the path and lets `update` change the list the last segment indexes. */
function updateList(
  node: unknown,
  segments: Segment[],
  update: (list: StepJson[], index: number) => StepJson[],
): unknown {
  const [head, ...rest] = segments;
  if (rest.length === 1) {
    const container = { ...(node as Record<string, unknown>) };
    container[head as string] = update(
      [...((container[head as string] as StepJson[] | undefined) ?? [])],
      rest[0] as number,
    );
    return container;
  }
  if (typeof head === 'number') {
    const list = [...(node as unknown[])];
    list[head] = updateList(list[head], rest, update);
    return list;
  }
  const object = node as Record<string, unknown>;
  return { ...object, [head as string]: updateList(object[head as string], rest, update) };
}

/** The flow with a step moved one place up (-1) or down (+1) within its list; unchanged at either end. */
export function withStepMoved(flow: FlowJson, path: string, by: -1 | 1): { flow: FlowJson; path: string } {
  const segments = stepPathSegments(path);
  const index = segments.at(-1) as number;
  const target = index + by;
  const siblingPath = path.replace(/\[\d+\]$/, `[${target}]`);
  const step = stepAt(flow, path);
  const sibling = stepAt(flow, siblingPath);
  if (!step || !sibling || target < 0) return { flow, path };
  return { flow: withStepAt(withStepAt(flow, siblingPath, step), path, sibling), path: siblingPath };
}

/** Key-order-independent JSON, so a draft equal to the saved version reads as unchanged. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonical(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}
