// Clients for the admin services that register callers (applications and
// service users), authenticated with the stack's admin token.
import { createClient, type Client } from '@connectrpc/connect';
import { createConnectTransport } from '@connectrpc/connect-node';
import { AppAdminService } from '../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import { UserAdminService } from '../../proto/gen/flowhook/engine/v1/user_admin_service_pb.js';
import type { TestStack } from './stack.ts';

export interface AccessAdmin {
  apps: Client<typeof AppAdminService>;
  users: Client<typeof UserAdminService>;
}

export function accessAdmin(stack: TestStack): AccessAdmin {
  const transport = createConnectTransport({
    baseUrl: stack.engineUrl,
    httpVersion: '2',
    interceptors: [
      (next) => (request) => {
        request.header.set('authorization', `Bearer ${stack.adminToken}`);
        return next(request);
      },
    ],
  });
  return { apps: createClient(AppAdminService, transport), users: createClient(UserAdminService, transport) };
}
