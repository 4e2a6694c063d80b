// The callbacks of one execution, by waitForCallback step: the update handler
// (flow-workflow.ts) puts a delivery in, the step takes it out. A provider may
// call back before the step waits (it answers while the sending httpRequest is
// still finishing), so a delivery is held until the step comes for it. Each
// step takes one callback ever; once its wait has timed out it takes none.
// Sandbox-free and I/O-free: refusals are returned, the workflow throws them.
import {
  CALLBACK_ALREADY_RECEIVED,
  CALLBACK_EXPIRED,
  CALLBACK_UNKNOWN_STEP,
  type CallbackAccepted,
  type CallbackDelivery,
} from '../../flow/callback-contract.ts';
import type { ReceivedCallback, StepCallbacks } from '../steps/flow-runtime.ts';

/** Why a delivery is not accepted: an ApplicationFailure's type and message. */
export interface CallbackRefusal {
  type: string;
  message: string;
}

/** Malformed updates (not the engine's doing: anyone with namespace access can send one). */
export const CALLBACK_MALFORMED = 'CallbackMalformed';

type Slot =
  { state: 'open' } | { state: 'held'; received: ReceivedCallback } | { state: 'taken' } | { state: 'expired' };

export class CallbackInbox implements StepCallbacks {
  readonly #slots = new Map<string, Slot>();
  readonly #statuses: ReadonlyMap<string, number>;

  /** `steps`: each waitForCallback step's name and the status its sender is answered. */
  constructor(steps: ReadonlyMap<string, number>) {
    this.#statuses = steps;
    for (const name of steps.keys()) this.#slots.set(name, { state: 'open' });
  }

  /** Why `delivery` would be refused now, or undefined when it would be accepted. */
  refusal(delivery: unknown): CallbackRefusal | undefined {
    if (!isDelivery(delivery))
      return { type: CALLBACK_MALFORMED, message: 'a callback needs a step name, a text body and text headers' };
    const slot = this.#slots.get(delivery.step);
    if (!slot)
      return {
        type: CALLBACK_UNKNOWN_STEP,
        message: `no waitForCallback step is named ${JSON.stringify(delivery.step)}`,
      };
    if (slot.state === 'held' || slot.state === 'taken')
      return {
        type: CALLBACK_ALREADY_RECEIVED,
        message: `step ${JSON.stringify(delivery.step)} already received its callback`,
      };
    if (slot.state === 'expired')
      return {
        type: CALLBACK_EXPIRED,
        message: `step ${JSON.stringify(delivery.step)} stopped waiting: its timeout passed`,
      };
    return undefined;
  }

  /** Holds an accepted delivery for its step; call only when refusal() is undefined. */
  deliver(delivery: CallbackDelivery, receivedAt: string): CallbackAccepted {
    this.#slots.set(delivery.step, { state: 'held', received: { delivery, receivedAt } });
    return { status: this.#statuses.get(delivery.step)! };
  }

  /** Whether a delivery waits for the step (what its wait's condition asks). */
  has(step: string): boolean {
    return this.#slots.get(step)?.state === 'held';
  }

  /** The held delivery, which the step now has; later deliveries are refused as already received. */
  take(step: string): ReceivedCallback | undefined {
    const slot = this.#slots.get(step);
    if (slot?.state !== 'held') return undefined;
    this.#slots.set(step, { state: 'taken' });
    return slot.received;
  }

  /** The step's wait timed out without a delivery: later ones are refused as expired. */
  expire(step: string): void {
    if (this.#slots.get(step)?.state === 'open') this.#slots.set(step, { state: 'expired' });
  }

  /** The flow's steps are done (ended or failed): a step not reached never waits, so its callback would be answered for nothing. */
  close(): void {
    for (const step of this.#slots.keys()) this.expire(step);
  }
}

function isDelivery(value: unknown): value is CallbackDelivery {
  if (value === null || typeof value !== 'object') return false;
  const { step, body, headers } = value as Partial<Record<keyof CallbackDelivery, unknown>>;
  if (
    typeof step !== 'string' ||
    typeof body !== 'string' ||
    headers === null ||
    typeof headers !== 'object' ||
    Array.isArray(headers)
  )
    return false;
  return Object.values(headers).every((header) => typeof header === 'string');
}
