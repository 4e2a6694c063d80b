// `flowhook hook-secret set|list|delete`: the signing secrets of provider
// routes (trigger.webhook.direct), each a call to HookSecretAdminService. A
// secret is read from a file or stdin (hidden at a terminal), never from argv
// where `ps` and the shell history would show it; only a generated secret is
// ever printed, once.
import { toJson } from '@bufbuild/protobuf';
import { timestampDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import { Code } from '@connectrpc/connect';
import { InvalidArgumentError, type Command } from 'commander';
import { DeleteHookSecretResponseSchema, ListHookSecretsResponseSchema, SetHookSecretResponseSchema } from '../../proto/gen/flowhook/engine/v1/hook_secret_admin_service_pb.js';
import { parseDuration } from '../../common/duration.ts';
import { adminAction, CliError, UsageError, type AdminRuntime } from './admin-action.ts';
import { printJson, printLines, shellArg, shownOnce, table } from './output.ts';
import { processSecretStdin, readSecret, type SecretStdin } from './secret-input.ts';

const JSON_OPTIONS = { alwaysEmitImplicit: true } as const;

export interface HookSecretCommandDeps {
  /** Where a secret given by no file is piped or typed. Default: the process's stdin. */
  stdin?: () => SecretStdin;
}

interface SetOptions {
  generate?: boolean;
  overlap?: number;
  secretFile?: string;
  json?: boolean;
}

export function registerHookSecretCommands(program: Command, runtime: AdminRuntime, deps: HookSecretCommandDeps = {}): void {
  const stdin = deps.stdin ?? processSecretStdin;
  const hookSecret = program.command('hook-secret').description('signing secrets of provider routes (trigger.webhook.direct), kept in the encrypted secret store');
  hookSecret
    .command('set')
    .description('set the secret a provider signs with (read from --secret-file or stdin, hidden at a terminal), or --generate one')
    .argument('<company>')
    .argument('<activity>')
    .option('--generate', 'generate a Standard Webhooks secret (whsec_…) and print it once, to give to the sender')
    .option('--overlap <duration>', 'keep accepting the replaced secret this long (e.g. 24h; at most 7d; default 0: it stops at once)', parseOverlap)
    .option('--secret-file <path>', 'read the secret from this file, one trailing line break removed; "-" for stdin. The secret is never accepted on the command line.')
    .option('--json', 'print the response as JSON (it holds the secret only with --generate)')
    .action(
      adminAction(runtime, async (context, company: string, activity: string) => {
        const options = context.options as SetOptions;
        const generate = options.generate === true;
        if (generate && options.secretFile !== undefined) throw new UsageError('give --secret-file or --generate, not both');
        const secret = generate
          ? ''
          : await readSecret({
              file: options.secretFile,
              stdin,
              io: context.io,
              prompt: `Enter the signing secret for "${activity}" in company "${company}" (input hidden), then press Enter:`,
            });
        if (!generate && secret === '') {
          const source = options.secretFile !== undefined && options.secretFile !== '-' ? 'the file given to --secret-file' : 'stdin';
          throw new CliError(`the signing secret is empty: nothing was read from ${source} (or use --generate)`, Code.InvalidArgument);
        }
        const response = await context.client().setHookSecret({ company, activity, secret, generate, overlapSeconds: options.overlap });
        if (context.json) return printJson(context.io, toJson(SetHookSecretResponseSchema, response, JSON_OPTIONS));
        const lines = [`Set the signing secret of activity ${activity.trim().toLowerCase()} in company "${company}" (stored encrypted).`];
        lines.push(response.previousValidUntil ? `The previous secret keeps verifying until ${iso(response.previousValidUntil)}.` : 'Any previous secret no longer verifies.');
        if (response.generatedSecret) lines.push(...shownOnce('signing secret (give it to the sender)', response.generatedSecret));
        printLines(context.io, lines);
      }),
    );
  hookSecret
    .command('list')
    .description('list hook secrets: company, activity, when set, rotation overlap — never a secret')
    .option('--company <name>', 'only this company')
    .option('--json', 'print the response as JSON')
    .action(
      adminAction(runtime, async (context) => {
        const company = typeof context.options.company === 'string' ? context.options.company : '';
        const response = await context.client().listHookSecrets({ company });
        if (context.json) return printJson(context.io, toJson(ListHookSecretsResponseSchema, response, JSON_OPTIONS));
        if (response.secrets.length === 0) {
          return printLines(context.io, [
            `No hook secrets${company ? ` in company "${company}"` : ''}. Set one with: flowhook hook-secret set ${shellArg(company || '<company>')} <activity>`,
          ]);
        }
        const rows = response.secrets.map((s) => [
          s.company,
          s.activity,
          s.updatedAt ? iso(s.updatedAt) : '',
          s.previousValidUntil ? iso(s.previousValidUntil) : '-',
          s.routePublished ? 'published' : 'not published',
        ]);
        printLines(context.io, table(['COMPANY', 'ACTIVITY', 'SET', 'PREVIOUS VALID UNTIL', 'ROUTE'], rows));
      }),
    );
  hookSecret
    .command('delete')
    .description('delete the secret (and any previous one): the provider route then refuses every request')
    .argument('<company>')
    .argument('<activity>')
    .option('--yes', 'confirm: requests to the route are refused from now on')
    .option('--json', 'print the response as JSON')
    .action(
      adminAction(runtime, async (context, company: string, activity: string) => {
        if (context.options.yes !== true) {
          throw new CliError(`without its secret the provider route of ${activity} refuses every request; repeat with --yes to delete it`, Code.FailedPrecondition);
        }
        const response = await context.client().deleteHookSecret({ company, activity });
        if (context.json) return printJson(context.io, toJson(DeleteHookSecretResponseSchema, response, JSON_OPTIONS));
        printLines(context.io, [
          `Deleted the signing secret of activity ${activity.trim().toLowerCase()} in company "${company}"; its provider route refuses every request until one is set.`,
        ]);
      }),
    );
}

/** `--overlap 24h` → whole seconds (the engine bounds it to 7 days). */
function parseOverlap(text: string): number {
  const ms = parseDuration(text);
  if (typeof ms === 'string') throw new InvalidArgumentError(ms);
  if (ms % 1000 !== 0) throw new InvalidArgumentError('the overlap is counted in whole seconds (e.g. 90s, 24h)');
  return ms / 1000;
}

function iso(timestamp: Timestamp): string {
  return timestampDate(timestamp).toISOString();
}
