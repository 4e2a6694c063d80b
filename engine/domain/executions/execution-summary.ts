// What an execution says about itself in the Temporal UI's list and header,
// fixed at start: a one-line summary and Markdown details. Metadata only —
// never payload data, so they are the same for doNotLogPayload flows, and
// nothing a caller sent beyond names flowhook already shows (the idempotency
// key is the caller's own handle for the call, not a credential — and for
// doNotLogPayload flows it is withheld, since callers often derive it from the payload).
import type { FlowExecutionInput } from '../../../flow/index.ts';
import type { AdmissionGate } from '../../../flow/flow-control-contract.ts';
import { markdownText } from '../../../flow/markdown-text.ts';
import { shellArg } from '../../../common/shell-words.ts';

const MODE_NAMES = { INSTANT_RETURN: 'instant return', WAIT_FOR_RESPONSE_STEP: 'wait for response' } as const;

/**
 * `orders.new · Acme Ltd. · order-intake v3 · wait for response`, and `· key INV-7` when flow control
 * computed keys (labels: never payload data of doNotLogPayload flows, engine/domain/flow-control/coordinator-ids.ts).
 */
export function executionSummary(input: FlowExecutionInput, keyLabels: readonly string[] = []): string {
  const keys = keyLabels.length > 0 ? [`key ${keyLabels.join(', ')}`] : [];
  return [
    input.trigger.activity,
    input.company,
    `${input.flowName} v${input.flowVersion}`,
    MODE_NAMES[input.trigger.responseMode] ?? input.trigger.responseMode,
    ...keys,
  ].join(' · ');
}

/** What a re-run repeats: the original execution's id and the admin account that started the re-run. */
export interface RerunOrigin {
  of: string;
  by: string;
}

export function executionDetails(
  input: FlowExecutionInput,
  executionId: string,
  idempotencyKey: string | undefined,
  rerun?: RerunOrigin,
): string {
  const lines = [
    `**${markdownText(input.trigger.description || input.trigger.activity, 200)}**`,
    '',
    `- company: ${code(input.company)} · flow: ${code(input.flowName)} version ${input.flowVersion}`,
    `- caller: ${code(input.caller)}`,
    `- response mode: ${MODE_NAMES[input.trigger.responseMode] ?? input.trigger.responseMode}${input.trigger.responseMode === 'WAIT_FOR_RESPONSE_STEP' ? ` (sync timeout ${Math.round(input.trigger.syncTimeoutMs / 1000)} s)` : ''}`,
    // A caller may build its key from the payload (an order or card number): withheld like the payload.
    ...(idempotencyKey
      ? [
          `- idempotency key: ${input.trigger.doNotLogPayload ? 'set (not shown: doNotLogPayload)' : code(idempotencyKey)}`,
        ]
      : []),
    ...(input.trigger.doNotLogPayload ? ['- payload: encrypted (doNotLogPayload)'] : []),
    ...(rerun
      ? [`- re-run of ${code(rerun.of)} (started by admin account ${code(rerun.by)}; its payload and trigger context)`]
      : []),
    ...(input.control?.gates ?? []).map(gateLine),
    ...(input.coalesced
      ? [
          `- debounce: stands for ${input.coalesced.count} call${input.coalesced.count === 1 ? '' : 's'} (\`Trigger.Coalesced\`)`,
        ]
      : []),
    ...(input.batch
      ? [`- batch of ${input.batch.length} call${input.batch.length === 1 ? '' : 's'} (\`Trigger.Batch\`)`]
      : []),
    '',
    'Next: the step log is the `executionLog` query (or `flowhook execution show ' +
      executionId +
      '`); ' +
      'the outcome for the caller is the `FlowOutcome` search attribute; the flow definition: `flowhook flow show ' +
      shellArg(input.company) +
      ' ' +
      shellArg(input.flowName) +
      '`.',
  ];
  return lines.join('\n');
}

/** What an execution waits for before its steps run; how long it waited is the `FlowWaitMs` search attribute. */
function gateLine(gate: AdmissionGate): string {
  switch (gate.kind) {
    case 'pause':
      return '- held: the flow was paused when the call came; it runs after `flowhook flow resume`';
    case 'throttle':
      return `- throttle: starts at most ${gate.perSecond}/s (burst ${gate.burst})${gate.keyLabel ? ` for key ${code(gate.keyLabel)}` : ''}`;
    case 'concurrency':
      return `- concurrency: runs when one of ${gate.limit} slot${gate.limit === 1 ? '' : 's'}${gate.keyLabel ? ` of key ${code(gate.keyLabel)}` : ''} is free`;
  }
}

/** Inline code that cannot be broken out of by backticks in a name. */
function code(text: string): string {
  return `\`${text.replaceAll('`', "'")}\``;
}
