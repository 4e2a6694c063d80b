// CallbackService: what a worker's waitForCallback step needs from the engine —
// registering the correlation key a step with `key` waits for. Records-scope
// accounts only (rpc/service-account-gate.ts), for a running execution the
// engine started (its grant). The key is stored only as a keyed digest and never logged.
import type { ServiceImpl } from '@connectrpc/connect';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import type {
  CallbackService,
  RegisterCallbackKeyRequest,
} from '../../../proto/gen/flowhook/engine/v1/callback_service_pb.js';
import { InvalidArgumentError } from '../../errors.ts';
import { serviceAccountOf } from '../../domain/callers/call-context.ts';
import { requireLiveGrant } from '../../domain/executions/execution-access.ts';
import type { ExecutionLiveness } from '../../domain/executions/execution-liveness.ts';
import { keyLookup, type CallbackKeys } from '../../domain/callbacks/callback-digests.ts';
import { activityOfExecution, checkStepName } from '../../domain/callbacks/callback-scope.ts';
import { registerKeyWait } from '../../domain/callbacks/callback-waits.ts';
import { executionStillRuns } from '../../domain/executions/execution-still-runs.ts';

export interface CallbackServiceDeps {
  orm: MikroORM;
  logger: Logger;
  grantKey: Buffer;
  liveness: ExecutionLiveness;
  callbackKeys: CallbackKeys;
  /** Asked whether an execution holding the key still runs (execution-still-runs.ts). */
  temporal: Client;
}

/** Longer than any deferral a deployment allows, short enough to stay a date. */
const MAX_TIMEOUT_MS = 10 * 366 * 24 * 3600 * 1000;

export function createCallbackService(deps: CallbackServiceDeps): ServiceImpl<typeof CallbackService> {
  return {
    async registerCallbackKey(request, context) {
      const timeoutMs = checkShape(request);
      const em = deps.orm.em.fork();
      const { company, executionId, step } = request;
      await requireLiveGrant(
        deps,
        serviceAccountOf(context),
        { company, executionId, grant: request.executionGrant },
        'callback keys are registered',
      );
      // The grant binds execution and company; the execution id names its activity, so the key cannot be placed under another flow's.
      const activity = request.activity.toLowerCase();
      if (activityOfExecution(executionId) !== activity)
        throw new InvalidArgumentError(`activity "${activity}" is not the activity of execution "${executionId}"`);
      const now = new Date();
      const lookup = keyLookup(deps.callbackKeys.lookup, { company, activity, key: request.key });
      const wait = { lookup, company, activity, executionId, step, sensitive: request.sensitive };
      const stillRuns = (holder: string) => executionStillRuns(deps.temporal, holder);
      const expiresAt = await registerKeyWait(em, wait, now, new Date(now.getTime() + timeoutMs), stillRuns);
      deps.logger.info(
        { company, activity, executionId, step, expiresAt: expiresAt.toISOString() },
        'callback key registered',
      );
      return { expiresAtMs: BigInt(expiresAt.getTime()) };
    },
  };
}

function checkShape(request: RegisterCallbackKeyRequest): number {
  if (!request.company) throw new InvalidArgumentError('company is required');
  if (!request.activity) throw new InvalidArgumentError('activity is required');
  if (!request.executionId) throw new InvalidArgumentError('executionId is required');
  checkStepName(request.step);
  if (!request.key) throw new InvalidArgumentError("key is required (the step's key evaluated to empty text)");
  const timeoutMs = Number(request.timeoutMs);
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS)
    throw new InvalidArgumentError('timeoutMs must be a positive number of milliseconds');
  return timeoutMs;
}
