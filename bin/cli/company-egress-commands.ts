// `flowhook company egress show|set|delete <company>`: the hosts a company's
// flows may call, narrowing FLOWHOOK_EGRESS_ALLOW, each a call to
// ConnectionAdminService.
import type { Command } from 'commander';
import {
  GetCompanyEgressResponseSchema,
  SetCompanyEgressResponseSchema,
  type CompanyEgress,
} from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { UsageError, type AdminRuntime } from './admin-action.ts';
import { rpcCommand } from './admin-command.ts';
import { splitList } from './option-values.ts';

export function registerCompanyEgressCommands(company: Command, runtime: AdminRuntime): void {
  const egress = company
    .command('egress')
    .description("the hosts a company's flows may call, on top of FLOWHOOK_EGRESS_ALLOW");
  rpcCommand(runtime, egress.command('show <company>'), {
    description: "show the company's egress list",
    response: GetCompanyEgressResponseSchema,
    call: (context, companyName: string) => context.client().getCompanyEgress({ company: companyName }),
    lines: ({ egress: now }, _context, companyName: string) => [describeEgress(now, companyName)],
  });
  rpcCommand(
    runtime,
    egress
      .command('set <company>')
      .argument('<entries...>', 'hosts, host:port or CIDRs, as separate arguments or comma-separated'),
    {
      description:
        "replace the company's egress list: its flows may call only these (and only where FLOWHOOK_EGRESS_ALLOW lets them)",
      response: SetCompanyEgressResponseSchema,
      call: (context, companyName: string, entries: string[]) => {
        const allow = entries.flatMap(splitList);
        if (allow.length === 0)
          throw new UsageError(
            'no egress entries given (only commas and blanks); to remove the list: flowhook company egress delete <company>',
          );
        return context.client().setCompanyEgress({ company: companyName, allow, clear: false });
      },
      lines: ({ egress: now }, _context, companyName: string) => [describeEgress(now, companyName)],
    },
  );
  rpcCommand(runtime, egress.command('delete <company>'), {
    description: "remove the company's egress list: only FLOWHOOK_EGRESS_ALLOW applies to its flows",
    response: SetCompanyEgressResponseSchema,
    call: (context, companyName: string) =>
      context.client().setCompanyEgress({ company: companyName, allow: [], clear: true }),
    lines: ({ egress: now }, _context, companyName: string) => [describeEgress(now, companyName)],
  });
}

/** Every egress command answers with the list as it now stands. */
function describeEgress(egress: CompanyEgress | undefined, company: string): string {
  const name = egress?.company || company;
  if (!egress?.narrowed) return `Company "${name}" has no egress list of its own: FLOWHOOK_EGRESS_ALLOW alone applies.`;
  return `Company "${name}" may call only: ${egress.allow.join(', ')}`;
}
