// First run on an empty database: company Default, a service user with a web
// service access key, and the published example flow — through the same admin
// RPCs the CLI uses. Returns the credentials, which are shown once. The
// `start` command passes the CLI's admin client and flow-file reader.
import { fileURLToPath } from 'node:url';
import type { Client } from '@connectrpc/connect';
import type { FlowAdminService } from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import type { Flow } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';

export const EXAMPLE_FLOW_PATH = fileURLToPath(
  new URL('../../examples/flows/hello-webhook.flow.yaml', import.meta.url),
);
export const SEED_COMPANY = 'Default';
export const SEED_USER = 'flowhook-service';

export interface SeedResult {
  company: string;
  userName: string;
  accessKey: string;
  activity: string;
  secret: string;
}

/** Seeds only an empty installation; returns undefined when companies exist. `readFlowFile` reads the example flow. */
export async function seedIfEmpty(
  admin: Client<typeof FlowAdminService>,
  readFlowFile: (path: string) => Promise<Flow>,
): Promise<SeedResult | undefined> {
  const { companies } = await admin.listCompanies({});
  if (companies.length > 0) return undefined;
  await admin.createCompany({ name: SEED_COMPANY });
  const user = await admin.createUser({ name: SEED_USER, company: SEED_COMPANY, permissionSet: 'FLOW ALL' });
  const flow = await readFlowFile(EXAMPLE_FLOW_PATH);
  const applied = await admin.applyFlow({ flow, publish: true });
  return {
    company: SEED_COMPANY,
    userName: user.name,
    accessKey: user.accessKey,
    activity: applied.flow?.activity ?? '',
    secret: applied.secret,
  };
}
