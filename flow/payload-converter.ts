// The data conversion flowhook's Temporal payloads go through (client, worker
// and workflow sandbox alike): the SDK's JSON conversion, plus a mark on every
// payload that belongs to a doNotLogPayload execution, so the payload codec
// (workflows/codec/) encrypts exactly those. Sandbox-safe: no Node built-ins.
//
// What is marked:
//  - inside the workflow sandbox: everything the workflow produces (activity
//    inputs, update and query results, its result, failure attributes) when the
//    execution's memo says doNotLogPayload;
//  - elsewhere: values marked with markSensitive() (the engine marks the
//    workflow input; activities mark the results of sensitive inputs). Values
//    read from a marked payload come back marked.
import {
  DefaultFailureConverter,
  defaultPayloadConverter,
  type Payload,
  type PayloadConverter,
  type SerializationContext,
} from '@temporalio/common';
import { inWorkflowContext, workflowInfo } from '@temporalio/workflow';

/** Memo key the engine sets on executions whose trigger has doNotLogPayload. */
export const DO_NOT_LOG_PAYLOAD_MEMO = 'doNotLogPayload';
/** Payload metadata that asks the codec to encrypt. */
export const SENSITIVE_METADATA = 'flowhook-sensitive';

const SENSITIVE = Symbol.for('flowhook.sensitive');

/** Marks an object (not its copies) as belonging to a doNotLogPayload execution. */
export function markSensitive<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !isSensitive(value)) {
    Object.defineProperty(value, SENSITIVE, { value: true, enumerable: false });
  }
  return value;
}

export function isSensitive(value: unknown): boolean {
  return value !== null && typeof value === 'object' && (value as { [SENSITIVE]?: boolean })[SENSITIVE] === true;
}

function inSensitiveWorkflow(): boolean {
  return inWorkflowContext() && workflowInfo().memo?.[DO_NOT_LOG_PAYLOAD_MEMO] === true;
}

class MarkingPayloadConverter implements PayloadConverter {
  readonly #inner: PayloadConverter;

  constructor(inner: PayloadConverter) {
    this.#inner = inner;
  }

  toPayload<T>(value: T, context?: SerializationContext): Payload {
    const payload = this.#inner.toPayload(value, context);
    if (!isSensitive(value) && !inSensitiveWorkflow()) return payload;
    return { ...payload, metadata: { ...payload.metadata, [SENSITIVE_METADATA]: new TextEncoder().encode('1') } };
  }

  fromPayload<T>(payload: Payload, context?: SerializationContext): T {
    const value = this.#inner.fromPayload<T>(payload, context);
    return payload.metadata?.[SENSITIVE_METADATA] ? markSensitive(value) : value;
  }
}

export const payloadConverter: PayloadConverter = new MarkingPayloadConverter(defaultPayloadConverter);

/** Failure messages and stack traces travel as (markable, encryptable) payloads, not as plain text fields. */
export const failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
