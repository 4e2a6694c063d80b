// `flowhook hook-secret set|list|delete`: the signing secrets of provider
// routes (trigger.webhook.direct), each a call to HookSecretAdminService. A
// secret is read from a file or stdin (hidden at a terminal), never from argv
// where `ps` and the shell history would show it; only a generated secret is
// ever printed, once.
import { InvalidArgumentError, type Command } from 'commander';
import {
  DeleteHookSecretResponseSchema,
  ListHookSecretsResponseSchema,
  SetHookSecretResponseSchema,
} from '../../proto/gen/flowhook/engine/v1/hook_secret_admin_service_pb.js';
import { parseDuration } from '../../common/duration.ts';
import { UsageError, type AdminContext, type AdminRuntime } from './admin-action.ts';
import { requireYes, rpcCommand } from './admin-command.ts';
import { shellArg, shownOnce, tableOr, timeText } from './output.ts';
import { readRequiredSecret, type SecretStdinDeps } from './secret-input.ts';

interface SetOptions {
  generate?: boolean;
  overlap?: number;
  secretFile?: string;
  json?: boolean;
}

export function registerHookSecretCommands(program: Command, runtime: AdminRuntime, deps: SecretStdinDeps = {}): void {
  const hookSecret = program
    .command('hook-secret')
    .description('signing secrets of provider routes (trigger.webhook.direct), kept in the encrypted secret store');
  rpcCommand(runtime, hookSecret.command('set <company> <activity>'), {
    description:
      'set the secret a provider signs with (read from --secret-file or stdin, hidden at a terminal), or --generate one',
    options: (command) =>
      command
        .option('--generate', 'generate a Standard Webhooks secret (whsec_…) and print it once, to give to the sender')
        .option(
          '--overlap <duration>',
          'keep accepting the replaced secret this long (e.g. 24h; at most 7d; default 0: it stops at once)',
          parseOverlap,
        )
        .option(
          '--secret-file <path>',
          'read the secret from this file, one trailing line break removed; "-" for stdin. The secret is never accepted on the command line.',
        ),
    jsonHolds: 'the secret only with --generate',
    response: SetHookSecretResponseSchema,
    call: async (context, company: string, activity: string) => {
      const options = context.options as SetOptions;
      const generate = options.generate === true;
      if (generate && options.secretFile !== undefined)
        throw new UsageError('give --secret-file or --generate, not both');
      const secret = generate
        ? ''
        : await readRequiredSecret({
            file: options.secretFile,
            stdin: deps.stdin,
            io: context.io,
            prompt: `Enter the signing secret for "${activity}" in company "${company}" (input hidden), then press Enter:`,
            what: 'signing secret',
            hint: ' (or use --generate)',
          });
      return context.client().setHookSecret({ company, activity, secret, generate, overlapSeconds: options.overlap });
    },
    lines: (response, _context, company: string, activity: string) => [
      `Set the signing secret of activity ${activity.trim().toLowerCase()} in company "${company}" (stored encrypted).`,
      response.previousValidUntil
        ? `The previous secret keeps verifying until ${timeText(response.previousValidUntil)}.`
        : 'Any previous secret no longer verifies.',
      ...(response.generatedSecret
        ? shownOnce('signing secret (give it to the sender)', response.generatedSecret)
        : []),
    ],
  });
  rpcCommand(runtime, hookSecret.command('list'), {
    description: 'list hook secrets: company, activity, when set, rotation overlap — never a secret',
    options: (command) => command.option('--company <name>', 'only this company'),
    response: ListHookSecretsResponseSchema,
    call: (context) => context.client().listHookSecrets({ company: companyOf(context) }),
    lines: ({ secrets }, context) => {
      const company = companyOf(context);
      return tableOr(
        `No hook secrets${company ? ` in company "${company}"` : ''}. Set one with: flowhook hook-secret set ${shellArg(company || '<company>')} <activity>`,
        ['COMPANY', 'ACTIVITY', 'SET', 'PREVIOUS VALID UNTIL', 'ROUTE'],
        secrets.map((s) => [
          s.company,
          s.activity,
          timeText(s.updatedAt),
          timeText(s.previousValidUntil) || '-',
          s.routePublished ? 'published' : 'not published',
        ]),
      );
    },
  });
  rpcCommand(runtime, hookSecret.command('delete <company> <activity>'), {
    description: 'delete the secret (and any previous one): the provider route then refuses every request',
    options: (command) => command.option('--yes', 'confirm: requests to the route are refused from now on'),
    response: DeleteHookSecretResponseSchema,
    call: async (context, company: string, activity: string) => {
      await requireYes(
        context,
        () =>
          `without its secret the provider route of ${activity} refuses every request; repeat with --yes to delete it`,
      );
      return context.client().deleteHookSecret({ company, activity });
    },
    lines: (_response, _context, company: string, activity: string) => [
      `Deleted the signing secret of activity ${activity.trim().toLowerCase()} in company "${company}"; its provider route refuses every request until one is set.`,
    ],
  });
}

/** `hook-secret list --company`; empty: every company. */
function companyOf(context: AdminContext): string {
  return typeof context.options.company === 'string' ? context.options.company : '';
}

/** `--overlap 24h` → whole seconds (the engine bounds it to 7 days). */
function parseOverlap(text: string): number {
  const ms = parseDuration(text);
  if (typeof ms === 'string') throw new InvalidArgumentError(ms);
  if (ms % 1000 !== 0) throw new InvalidArgumentError('the overlap is counted in whole seconds (e.g. 90s, 24h)');
  return ms / 1000;
}
