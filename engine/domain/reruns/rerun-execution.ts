// One re-run: a new execution with the original's exact payload text and
// trigger context (caller label, company, activity, provider request), on the
// flow version now published for its activity or, pinned, on the original's
// own version. A re-run is a new execution by design (its own id, grant and
// history); it names what it repeats in the `RerunOf` search attribute, the
// `rerunOf` memo and its Temporal UI details.
//
// It runs like an Instant-return call: nobody waits for it, so a respond step
// is recorded as ignored and a deferral (sleep, waitUntil) is fine anywhere.
//
// A doNotLogPayload execution re-run on another version than its own hands
// its payload to that version's steps: a reveal, for admins of its company
// only, and recorded as one (security/execution-payload-reveal.ts). Anyone
// else is refused rather than moved onto the original's version unasked: the
// answer names the version a re-run ran on, and a silent change of it would
// read as the fix not working.
import { randomUUID } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Client } from '@temporalio/client';
import type { Logger } from 'pino';
import { resolveTrigger, type FlowExecutionInput, type FlowLimits } from '../../../flow/index.ts';
import { FailedPreconditionError, NotFoundError, PermissionDeniedError } from '../../errors.ts';
import type { PayloadReveals } from '../executions/execution-payload-reveal.ts';
import type { ServiceAccountIdentity } from '../callers/service-account-tokens.ts';
import { FlowVersion } from '../../infrastructure/storage/entities.ts';
import type { ExecutionStarter } from '../executions/execution-starter.ts';
import { RERUN_OF_KEY } from '../../infrastructure/temporal/search-attributes.ts';
import { DO_NOT_LOG_PAYLOAD_MEMO } from '../../../flow/payload-converter.ts';
import { executionRequest } from '../webhook/execution-request.ts';
import type { PublishedFlowLookup, PublishedFlowSnapshot } from '../flows/published-flow-lookup.ts';
import { describeFlowExecution, startInput } from '../executions/execution-reads.ts';

export interface RerunDeps {
  orm: MikroORM;
  temporal: Client;
  taskQueue: string;
  starter: ExecutionStarter;
  publishedFlows: PublishedFlowLookup;
  grantKey: Buffer;
  idempotencyKey: Buffer;
  flowLimits: FlowLimits;
  useSearchAttributes: () => boolean;
  logger: Logger;
}

/** Who asks for a re-run: the account the gate admitted, and what the caller may see of withheld payloads. */
export interface RerunCaller {
  account: ServiceAccountIdentity;
  reveals: PayloadReveals;
}

export interface RerunResult {
  originalExecutionId: string;
  executionId: string;
  flowVersion: number;
}

/** `<activity>:rerun-<uuid>`: a re-run is told apart from a call in the Temporal UI's id column. */
export function rerunExecutionId(activity: string): string {
  return `${activity}:rerun-${randomUUID()}`;
}

/** The caller's account is an admin account (the gate checked its scope); on the console's listener the roles checked the company. */
export async function rerunExecution(
  deps: RerunDeps,
  caller: RerunCaller,
  originalId: string,
  sameVersion: boolean,
): Promise<RerunResult> {
  const { account } = caller;
  const { input: original, withheld } = await originalInput(deps, originalId);
  const em = deps.orm.em.fork();
  const version = sameVersion ? await originalVersion(em, original) : await publishedVersion(deps, em, original);
  const reveals = withheld && version.flowVersion.version !== original.flowVersion;
  if (reveals && !caller.reveals.mayReveal(original.company)) {
    throw new PermissionDeniedError(
      `Execution "${originalId}" does not log its payload (doNotLogPayload): re-running it on version ${version.flowVersion.version} instead of its own version ` +
        `${original.flowVersion} would hand its payload to that version's steps, which only an admin of company "${original.company}" may do. ` +
        'Re-run it on its own version (sameVersion, --same-version) or ask an admin',
    );
  }
  const resolved = resolveTrigger(version.flowVersion.definition.trigger?.webhook ?? {});
  const trigger = {
    ...resolved,
    // Nobody waits for a re-run: see the header.
    responseMode: 'INSTANT_RETURN' as const,
    // A payload the original kept out of Temporal's history stays out of it, whatever the new version says.
    doNotLogPayload: resolved.doNotLogPayload || original.trigger.doNotLogPayload,
  };
  const executionId = rerunExecutionId(trigger.activity);
  const collected = {
    ...(original.coalesced && { coalesced: original.coalesced }),
    ...(original.batch && { batch: original.batch }),
  };
  if (reveals) {
    await caller.reveals.record({
      company: original.company,
      executionId: originalId,
      details: {
        rerunExecutionId: executionId,
        flowVersion: version.flowVersion.version,
        originalFlowVersion: original.flowVersion,
      },
    });
  }
  const request = await executionRequest(deps, version, trigger, {
    caller: original.caller,
    payloadJson: original.payloadJson,
    direct: original.direct,
    executionId,
    collected,
  });
  await deps.starter.startInstant({
    ...request,
    searchAttributes: request.searchAttributes && [
      ...request.searchAttributes,
      { key: RERUN_OF_KEY, value: originalId },
    ],
    rerun: { of: originalId, by: account.name },
  });
  // The audit line: who re-ran what as what. Never the payload.
  deps.logger.info(
    {
      serviceAccount: account.name,
      originalExecutionId: originalId,
      executionId,
      company: version.company.name,
      activity: trigger.activity,
      flowVersion: version.flowVersion.version,
    },
    'execution re-run',
  );
  return { originalExecutionId: originalId, executionId, flowVersion: version.flowVersion.version };
}

async function originalInput(
  deps: RerunDeps,
  executionId: string,
): Promise<{ input: FlowExecutionInput; withheld: boolean }> {
  // Another application's workflows on the same namespace are not flowhook's to re-run.
  const { description } = await describeFlowExecution(deps.temporal, executionId, { taskQueue: deps.taskQueue });
  if (description.status.name === 'RUNNING')
    throw new FailedPreconditionError(`Execution "${executionId}" is still running; re-run it once it has closed`);
  const input = await startInput(deps.temporal, executionId, description.runId);
  if (!input?.company || !input.flowName || !input.trigger?.activity)
    throw new FailedPreconditionError(`Execution "${executionId}" has no input a re-run could repeat`);
  return {
    input,
    withheld: input.trigger.doNotLogPayload === true || description.memo?.[DO_NOT_LOG_PAYLOAD_MEMO] === true,
  };
}

async function publishedVersion(
  deps: RerunDeps,
  em: ReturnType<MikroORM['em']['fork']>,
  original: FlowExecutionInput,
): Promise<PublishedFlowSnapshot> {
  try {
    return await deps.publishedFlows.find(em, original.company, original.trigger.activity);
  } catch (error) {
    if (!(error instanceof NotFoundError)) throw error;
    throw new FailedPreconditionError(
      `${error.message}: publish a version, or re-run on the original's version ${original.flowVersion} with --same-version`,
    );
  }
}

async function originalVersion(
  em: ReturnType<MikroORM['em']['fork']>,
  original: FlowExecutionInput,
): Promise<PublishedFlowSnapshot> {
  const found = await em.findOne(
    FlowVersion,
    { flow: { name: original.flowName, company: { name: original.company } }, version: original.flowVersion },
    { populate: ['flow', 'flow.company'] },
  );
  if (!found)
    throw new NotFoundError(
      `Version ${original.flowVersion} of flow "${original.flowName}" in company "${original.company}" no longer exists`,
    );
  return {
    company: { id: found.flow.company.id, name: found.flow.company.name },
    flow: { name: found.flow.name, secretHash: found.flow.secretHash ?? null, paused: found.flow.pausedAt != null },
    flowVersion: { version: found.version, definition: found.definition },
  };
}
