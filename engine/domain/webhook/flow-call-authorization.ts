// The checks of a call on a published flow, shared by everything a
// caller does with a flow's secret (Invoke starts an execution, ResumeCallback
// resumes one): authenticate the caller, look the flow up, check the secret,
// the service account's companies and the permission set — in that order, so
// a caller without credentials learns nothing about flows, and one without the
// secret nothing about permissions. A caller with no permission set in the
// company named learns nothing about that tenant either: before any lookup it
// gets the same 401 whether the company, the activity or neither is unknown.
// The secret never leaves this function.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Caller } from '../../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { resolveTrigger, type ResolvedTrigger } from '../../../flow/index.ts';
import { PermissionDeniedError, UnauthenticatedError } from '../../errors.ts';
import type { WebhookLimits } from '../limits/webhook-limits.ts';
import { matchesHash } from '../callers/credentials.ts';
import { actsForCompany, type ServiceAccountIdentity } from '../callers/service-account-tokens.ts';
import { authenticateCaller, type CallerIdentity } from '../callers/caller-authentication.ts';
import type { CallerDirectory } from '../callers/caller-directory.ts';
import { mayLearnAboutCompany, missingPermissionSet } from '../callers/permissions.ts';
import type { PublishedFlowLookup, PublishedFlowSnapshot } from '../flows/published-flow-lookup.ts';
import { requireNamesWithinLimits } from './request-names.ts';

export interface FlowCallDeps {
  publishedFlows: PublishedFlowLookup;
  callers: CallerDirectory;
  limits: WebhookLimits;
}

/** The parts of a request that identify the call: who, which flow, and the flow's secret. */
export interface FlowCallCredentials {
  company: string;
  activity: string;
  secret: string;
  caller?: Caller;
}

export interface AuthorizedFlowCall {
  caller: CallerIdentity;
  published: PublishedFlowSnapshot;
  trigger: ResolvedTrigger;
}

/** Told which published flow a call named, once the lookup found it (metrics label refusals after that per flow). */
export interface InvokeObserver {
  flowResolved(company: string, activity: string, responseMode: string): void;
}

export async function authorizeFlowCall(
  deps: FlowCallDeps,
  em: EntityManager,
  request: FlowCallCredentials,
  account: ServiceAccountIdentity,
  observer?: InvokeObserver,
): Promise<AuthorizedFlowCall> {
  requireNamesWithinLimits(request);
  const caller = await authenticateCaller(deps.callers, em, request.caller, new Date(), account);
  deps.limits.admitCaller(caller.label);
  if (!mayLearnAboutCompany(caller, request.company))
    throw new UnauthenticatedError('Unauthorized', 'no_grant_in_company');
  const published = await deps.publishedFlows.find(em, request.company, request.activity);
  const trigger = resolveTrigger(published.flowVersion.definition.trigger?.webhook ?? {});
  observer?.flowResolved(published.company.name, trigger.activity, trigger.responseMode);
  if (!matchesHash(request.secret, published.flow.secretHash))
    throw new UnauthenticatedError('Unauthorized', 'secret_mismatch');
  // Like a permission set, checked after the secret: the account's companies bound the facade and internal services alike.
  if (!actsForCompany(account, published.company.id)) {
    throw new PermissionDeniedError(
      `Service account "${account.name}" may not call flows of company "${published.company.name}"`,
      { reason: 'service_account_company' },
    );
  }
  const missing = missingPermissionSet(caller, published.company.id);
  if (missing) {
    throw new PermissionDeniedError(
      `Caller "${caller.name}" lacks the permission set "${missing}" for company "${published.company.name}"`,
      {
        reason: 'missing_permission_set',
        permissionSet: missing,
      },
    );
  }
  return { caller, published, trigger };
}
