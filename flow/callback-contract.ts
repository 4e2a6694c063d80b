// What the engine and the flow workflow agree on for waitForCallback: what the
// update that delivers a callback (callbackUpdate, flow-messages.ts) carries
// and how it is refused. The token or key never travels here: the engine
// resolves it to (execution, step).

/** One callback as the step receives it. */
export interface CallbackDelivery {
  /** The waitForCallback step's name. */
  step: string;
  /** The body, exact UTF-8 text. */
  body: string;
  /** Lower-cased names, without credentials and proxy headers (the engine filters them). */
  headers: Record<string, string>;
}

/** What the sender of an accepted callback is answered. */
export interface CallbackAccepted {
  status: number;
}

/** ApplicationFailure types the update's validator refuses with. */
export const CALLBACK_UNKNOWN_STEP = 'CallbackUnknownStep';
export const CALLBACK_ALREADY_RECEIVED = 'CallbackAlreadyReceived';
export const CALLBACK_EXPIRED = 'CallbackExpired';

/** The sender's answer when the step sets no responseStatus. */
export const DEFAULT_CALLBACK_STATUS = 202;
