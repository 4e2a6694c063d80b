// The object every SmartFormula is evaluated against and every SmartField
// path starts from. Built once per execution by the workflow; steps add to
// Variables and Steps as they run.

export interface FormulaContext {
  Trigger: {
    /**
     * The parsed webhook body, so `Trigger.Payload.order.id` is a member path. Parsed with its
     * exact text remembered (exact-source.ts): written out unchanged, a value is written as sent.
     */
    Payload: unknown;
    /** The body exactly as received; `{{Trigger.Payload}}` and `${Trigger.Payload}` write this text. */
    PayloadJson: string;
    /** The activity the caller named (as stored: lower case). */
    Activity: string;
    /** The trigger's description, from the flow file. */
    Description: string;
    // ── provider route only (POST /{instance}/hooks/{company}/{activity}); absent on the OData route ──
    /** The request body exactly as received: UTF-8 text, or base64 when the bytes are not UTF-8 (see BodyEncoding). */
    Body?: string;
    /** `text` or `base64`: how Body holds the bytes. */
    BodyEncoding?: 'text' | 'base64';
    /** The parsed body, when the content type is JSON and the body parses. */
    Json?: unknown;
    /** The decoded fields, when the content type is application/x-www-form-urlencoded; repeated keys are arrays. */
    Form?: Record<string, string | string[]>;
    /** Request headers, lower-cased, without signature, timestamp, authorization and cookie headers. */
    Headers?: Record<string, string>;
    /** The decoded query string; repeated keys are arrays. */
    Query?: Record<string, string | string[]>;
    /** The request's method: `POST`. */
    Method?: string;
    /** The verified scheme and the provider's event id (when the scheme has one). */
    Provider?: {
      /** The verified scheme's name, e.g. `stripe`. */
      Scheme: string;
      /** The provider's event id; for `github`, `shopify` and `hmac` without `{id}` an unsigned header's text. */
      EventId?: string;
    };
    // ── flow control only (trigger.webhook.debounce / batch); absent otherwise ──
    /** Debounce: how many calls this execution stands for, and each one's exact payload text in arrival order (the latest ones when there were many). */
    Coalesced?: { count: number; payloads: string[] };
    /** Batch: the calls collected into this execution, in arrival order; `payload` is each call's exact payload text. */
    Batch?: { payload: string; caller: string; receivedAt: string }[];
  };
  /** What `set` steps have set so far, by name; a name no step set reads as nothing. */
  Variables: Record<string, unknown>;
  /** The outputs of the named steps that have run, by step name. */
  Steps: Record<string, unknown>;
  Execution: {
    /** The execution id (the Temporal workflow id), `<activity>:…`. */
    Id: string;
    /** When the execution started, ISO 8601 in UTC. */
    StartedAt: string;
  };
  Company: {
    /** The company the flow runs in. */
    Name: string;
  };
  /**
   * Per waitForCallback step without a key, `url`: its callback URL as the workflow knows it, a
   * placeholder the httpRequest activity replaces by the real URL when it sends (flow/callback-placeholders.ts).
   * Absent when the flow has no such step.
   */
  Callbacks?: Record<string, { url: string }>;
}
