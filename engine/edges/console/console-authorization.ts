// Enforces console-rpc-policy.ts on every call the console's listener serves
// (ConsoleService, the session itself, aside): the person's role in the
// company the call is about, from the request — or, for an execution, from
// its company, which the service checks on a describe before it reads
// anything (security/company-reach.ts) and which is checked here again on the
// answer, withheld with the very words of an unknown id — and ListCompanies
// cut to the companies the person has a role in. A refusal for a company the
// person has no role in is audited in the deployment's log, not in that
// company's (audit-interceptor.ts).
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { ConsoleService } from '../../../proto/gen/flowhook/engine/v1/console_service_pb.js';
import type { ListCompaniesResponse } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import type { GetExecutionRequest } from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { refusedOutsideItsCompanies } from '../rpc/audit-interceptor.ts';
import { executionNotFound } from '../../domain/executions/execution-reads.ts';
import { CONSOLE_CALL } from './console-gate.ts';
import { authorizeRequest, authorizeResponse, rpcRule } from './console-rpc-policy.ts';
import { seesCompany } from '../../domain/callers/console-roles.ts';

export function consoleAuthorization(): Interceptor {
  return (next) => async (request) => {
    const service = request.service.typeName;
    if (service === ConsoleService.typeName) return next(request);
    // The gate admits no other call without a session.
    const grants = request.contextValues.get(CONSOLE_CALL).session?.identity.roles ?? {};
    const method = request.method.name;
    const verdict = authorizeRequest(grants, service, method, request.stream ? undefined : request.message);
    if (!verdict.allowed) {
      const refusal = new ConnectError(verdict.reason, Code.PermissionDenied);
      // A company the person has no role in learns nothing of the attempt: the audit entry goes to the deployment's log.
      throw verdict.company !== undefined && seesCompany(grants, verdict.company)
        ? refusal
        : refusedOutsideItsCompanies(refusal);
    }
    const response = await next(request);
    if (response.stream) return response;
    const rule = rpcRule(service, method)!;
    if (rule.company === 'filtered') {
      const listing = response.message as ListCompaniesResponse;
      listing.companies = listing.companies.filter((company) => seesCompany(grants, company.name));
    }
    if (!authorizeResponse(grants, rule, response.message).allowed) {
      // Only an execution names its company in the answer: withheld as the service answers an unknown id.
      const executionId = (request.message as Partial<GetExecutionRequest>).executionId ?? '';
      throw new ConnectError(executionNotFound(executionId).message, Code.NotFound);
    }
    return response;
  };
}
