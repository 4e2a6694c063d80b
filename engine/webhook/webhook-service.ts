// The WebhookService Connect implementation: a thin adapter from the RPC to
// invokeWebhook; errors become Connect codes in the engine's one interceptor.
// Its log line gets the request id from the request scope (rpc/request-scope-interceptor.ts).
import { create } from '@bufbuild/protobuf';
import type { ServiceImpl } from '@connectrpc/connect';
import type { Logger } from 'pino';
import {
  InvokeOutcome,
  InvokeResponseSchema,
  type WebhookService,
} from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import type { WebhookOutcome } from '../../workflows/shared/index.ts';
import { invokeWebhook, type InvokeDeps } from './invoke-webhook.ts';

const OUTCOMES: Record<WebhookOutcome, InvokeOutcome> = {
  RESPONDED: InvokeOutcome.RESPONDED,
  SYNC_TIMEOUT: InvokeOutcome.SYNC_TIMEOUT,
  FLOW_ENDED: InvokeOutcome.FLOW_ENDED,
  INSTANT_RETURN: InvokeOutcome.INSTANT_RETURN,
};

export function createWebhookService(deps: InvokeDeps & { logger: Logger }): ServiceImpl<typeof WebhookService> {
  return {
    async invoke(request) {
      const started = Date.now();
      const execution = await invokeWebhook(deps, request);
      deps.logger.info(
        { company: request.company, activity: request.activity.toLowerCase(), executionId: execution.executionId, outcome: execution.outcome, ms: Date.now() - started },
        'webhook invoked',
      );
      return create(InvokeResponseSchema, {
        statusCode: execution.statusCode,
        contentType: execution.contentType,
        body: execution.body,
        executionId: execution.executionId,
        defaultResponse: execution.defaultResponse,
        outcome: OUTCOMES[execution.outcome],
      });
    },
  };
}
