// Enforces console-rpc-policy.ts on every call the console's listener serves
// (ConsoleService, the session itself, aside): the person's role in the
// company the call is about, from the request — or from the answer, which is
// then withheld as "not found" (another company's execution is not revealed)
// — and ListCompanies cut to the companies the person has a role in.
import { Code, ConnectError, type Interceptor } from '@connectrpc/connect';
import { ConsoleService } from '../../proto/gen/flowhook/engine/v1/console_service_pb.js';
import type { ListCompaniesResponse } from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { CONSOLE_CALL } from './console-gate.ts';
import { authorizeRequest, authorizeResponse, rpcRule } from './console-rpc-policy.ts';
import { seesCompany } from './console-roles.ts';

export function consoleAuthorization(): Interceptor {
  return (next) => async (request) => {
    const service = request.service.typeName;
    if (service === ConsoleService.typeName) return next(request);
    // The gate admits no other call without a session.
    const grants = request.contextValues.get(CONSOLE_CALL).session?.identity.roles ?? {};
    const method = request.method.name;
    const verdict = authorizeRequest(grants, service, method, request.stream ? undefined : request.message);
    if (!verdict.allowed) throw new ConnectError(verdict.reason, Code.PermissionDenied);
    const response = await next(request);
    if (response.stream) return response;
    const rule = rpcRule(service, method)!;
    if (rule.company === 'filtered') {
      const listing = response.message as ListCompaniesResponse;
      listing.companies = listing.companies.filter((company) => seesCompany(grants, company.name));
    }
    if (!authorizeResponse(grants, rule, response.message).allowed) throw new ConnectError('not found', Code.NotFound);
    return response;
  };
}
