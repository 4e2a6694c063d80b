// `flowhook company egress show|set|delete <company>`: the hosts a company's
// flows may call, narrowing FLOWHOOK_EGRESS_ALLOW, each a call to
// ConnectionAdminService.
import { toJson, type DescMessage, type MessageShape } from '@bufbuild/protobuf';
import type { Command } from 'commander';
import { GetCompanyEgressResponseSchema, SetCompanyEgressResponseSchema, type CompanyEgress } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { adminAction, UsageError, type AdminContext, type AdminRuntime } from './admin-action.ts';
import { splitList } from './connection-commands.ts';
import { printJson, printLines } from './output.ts';

const JSON_OPTIONS = { alwaysEmitImplicit: true } as const;

export function registerCompanyEgressCommands(company: Command, runtime: AdminRuntime): void {
  const egress = company.command('egress').description("the hosts a company's flows may call, on top of FLOWHOOK_EGRESS_ALLOW");
  egress
    .command('show')
    .description("show the company's egress list")
    .argument('<company>')
    .option('--json', 'print the response as JSON')
    .action(
      adminAction(runtime, async (context, companyName: string) => {
        print(context, companyName, GetCompanyEgressResponseSchema, await context.client().getCompanyEgress({ company: companyName }));
      }),
    );
  egress
    .command('set')
    .description("replace the company's egress list: its flows may call only these (and only where FLOWHOOK_EGRESS_ALLOW lets them)")
    .argument('<company>')
    .argument('<entries...>', 'hosts, host:port or CIDRs, as separate arguments or comma-separated')
    .option('--json', 'print the response as JSON')
    .action(
      adminAction(runtime, async (context, companyName: string, entries: string[]) => {
        const allow = entries.flatMap(splitList);
        if (allow.length === 0) throw new UsageError('no egress entries given (only commas and blanks); to remove the list: flowhook company egress delete <company>');
        print(context, companyName, SetCompanyEgressResponseSchema, await context.client().setCompanyEgress({ company: companyName, allow, clear: false }));
      }),
    );
  egress
    .command('delete')
    .description("remove the company's egress list: only FLOWHOOK_EGRESS_ALLOW applies to its flows")
    .argument('<company>')
    .option('--json', 'print the response as JSON')
    .action(
      adminAction(runtime, async (context, companyName: string) => {
        print(context, companyName, SetCompanyEgressResponseSchema, await context.client().setCompanyEgress({ company: companyName, allow: [], clear: true }));
      }),
    );
}

/** Every egress command answers with the list as it now stands. */
function print<S extends DescMessage>(context: AdminContext, company: string, schema: S, response: MessageShape<S> & { egress?: CompanyEgress }): void {
  if (context.json) return printJson(context.io, toJson(schema, response, JSON_OPTIONS));
  printLines(context.io, [describeEgress(response.egress, company)]);
}

function describeEgress(egress: CompanyEgress | undefined, company: string): string {
  const name = egress?.company || company;
  if (!egress?.narrowed) return `Company "${name}" has no egress list of its own: FLOWHOOK_EGRESS_ALLOW alone applies.`;
  return `Company "${name}" may call only: ${egress.allow.join(', ')}`;
}
