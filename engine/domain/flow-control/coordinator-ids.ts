// Names of flow control in Temporal: the workflow id of each key's
// coordinator, and the label of a key in search attributes and summaries.
// Keys are often payload data (an invoice number, a customer id), and ids are
// in clear history: a coordinator's id is an HMAC of (control, company, flow,
// key) under the engines' idempotency key, never the key itself. The label
// shows the key as it is — except for doNotLogPayload flows and long keys,
// which get `#` and an HMAC of the key text, so the same key has the same
// label in every flow and `flowhook execution list --key` finds it.
//
// That filter matches a withheld key only when the caller types the whole
// key, which it labels the same way: typing a label must match nothing but
// the key of that text. So a key is shown as it is only when it can never be
// taken for a label (it does not have a label's form) nor change shape in a
// visibility query (Temporal's SQL stores drop quotes from a query's
// literals, so `#…'` would find `#…`): anything else is labelled too.
import { createHmac } from 'node:crypto';
import { hasControlCharacter } from '../../../common/control-characters.ts';

export type CoordinatorKind = 'concurrency' | 'throttle' | 'debounce' | 'batch' | 'pause';

/** Longest key shown as it is. */
export const MAX_SHOWN_KEY_LENGTH = 100;

export interface CoordinatedFlow {
  company: string;
  flowName: string;
  activity: string;
}

/**
 * `flowhook-<kind>:<activity>:<hmac>`: the kind and activity say what it is in the Temporal UI's
 * list; the digest tells keys (and companies, flows) apart. `scope` separates what must not share a
 * coordinator although the key is the same (a collector's flow version).
 */
export function coordinatorId(
  secret: Buffer,
  kind: CoordinatorKind,
  flow: CoordinatedFlow,
  key: string,
  scope = '',
): string {
  return `flowhook-${kind}:${flow.activity}:${digest(secret, [kind, flow.company, flow.flowName, scope, key], 32)}`;
}

/** The pause gate of a flow: one per flow, whatever its version or key. */
export function pauseGateId(secret: Buffer, flow: { company: string; flowName: string }): string {
  return `flowhook-pause:${digest(secret, ['pause', flow.company, flow.flowName], 32)}`;
}

/** A label's form: `#` and 16 base64url characters. */
const LABEL_FORM = /^#[A-Za-z0-9_-]{16}$/;

/** How a key is shown: '' stays '' (no key: one for the whole flow). */
export function keyLabel(secret: Buffer, key: string, hidden: boolean): string {
  if (key === '' || (!hidden && shownAsItIs(key))) return key;
  return hiddenKeyLabel(secret, key);
}

function shownAsItIs(key: string): boolean {
  return (
    key.length <= MAX_SHOWN_KEY_LENGTH && !hasControlCharacter(key) && !/['"\\]/.test(key) && !LABEL_FORM.test(key)
  );
}

/** Every label a key can have, for a filter that must find it in any flow: never a label typed in (see the header). */
export function keyLabels(secret: Buffer, key: string): string[] {
  return [...new Set([keyLabel(secret, key, false), hiddenKeyLabel(secret, key)])];
}

function hiddenKeyLabel(secret: Buffer, key: string): string {
  return `#${digest(secret, ['key label', key], 16)}`;
}

function digest(secret: Buffer, parts: readonly string[], length: number): string {
  return createHmac('sha256', secret).update(JSON.stringify(parts), 'utf8').digest('base64url').slice(0, length);
}
