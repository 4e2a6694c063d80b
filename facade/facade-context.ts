// The per-request state the facade's middlewares share, and the Koa types
// narrowed to it.
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { Middleware, ParameterizedContext } from 'koa';
import type { CallerSchema } from '../proto/gen/flowhook/engine/v1/webhook_service_pb.js';

/** The caller identity as sent to the engine (one case of the `identity` oneof). */
export type CallerInit = MessageInitShape<typeof CallerSchema>;

export interface FacadeState {
  /** Set first by request-context.ts; echoed as `x-request-id` and sent to the engine. */
  requestId: string;
  /** The `company` query parameter, decoded. */
  company?: string;
  /** Set once the caller's credentials were read (never logged). */
  caller?: CallerInit;
  /** Set on success, for the request log line. */
  executionId?: string;
  /** The OData error code of a failed request, for the request log line. */
  errorCode?: string;
  /** Provider route: the request body's bytes as received (raw-body.ts); never parsed by the facade. */
  rawBody?: Buffer;
  /** Endpoint: the `payload` member's exact text, once read (webhook-request.ts), for the delivery log. */
  payloadJson?: string;
}

export type FacadeContext = ParameterizedContext<FacadeState>;
export type FacadeMiddleware = Middleware<FacadeState>;
