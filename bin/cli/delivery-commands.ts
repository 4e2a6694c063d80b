// `flowhook delivery list|show|replay`: the delivery log — every request to the
// webhook endpoint, the provider routes and the callback routes, accepted or
// refused — read through the engine's DeliveryService with the admin token, and
// replay of a stored call on the flow version published now. Headers come
// redacted from the engine and bodies only where an execution's payload would
// be shown, so nothing here needs hiding. A replay goes on only with --yes.
import { createClient, type Client } from '@connectrpc/connect';
import type { Timestamp } from '@bufbuild/protobuf/wkt';
import type { MessageInitShape } from '@bufbuild/protobuf';
import type { Command } from 'commander';
import {
  DeliveryService,
  GetDeliveryResponseSchema,
  ListDeliveriesResponseSchema,
  ReplayDeliveriesResponseSchema,
  ReplayDeliveryResponseSchema,
  type Delivery,
  type DeliveryFilterSchema,
} from '../../proto/gen/flowhook/engine/v1/delivery_service_pb.js';
import { adminAction, commandRuntime, UsageError, type CommandWiring } from './admin-action.ts';
import { requireYes, rpcCommand } from './admin-command.ts';
import { adminOptionsFromEnvironment, createAdminTransport } from './admin-client.ts';
import { timeOption } from './audit-commands.ts';
import { oneOf, positiveInt, wholeNumberIn } from './option-values.ts';
import { printResponse, table, tableOr, timeText } from './output.ts';

export type DeliveryClient = Client<typeof DeliveryService>;

export interface DeliveryCommandDeps extends CommandWiring<DeliveryClient> {
  /** For `--since 24h`; default: the clock. */
  now?: () => Date;
}

function deliveryClientFromEnvironment(): DeliveryClient {
  return createClient(DeliveryService, createAdminTransport(adminOptionsFromEnvironment()));
}

const OUTCOMES = ['accepted', 'refused', 'failed'] as const;
const ROUTES = ['endpoint', 'resume', 'answer', 'provider', 'callback'] as const;
/** The engine's default for max_count (engine/domain/deliveries/replay-deliveries.ts). */
const DEFAULT_MAX = 100;

type FilterOptions = {
  company?: string;
  outcome?: string;
  reason?: string;
  status?: number;
  activity?: string;
  caller?: string;
  route?: string;
  since?: Timestamp;
  until?: Timestamp;
};

export function registerDeliveryCommands(program: Command, deps: DeliveryCommandDeps = {}): void {
  // Connects on first use, so `--help` and usage errors need no engine and no token.
  const runtime = commandRuntime(deps, deliveryClientFromEnvironment);
  const now = deps.now ?? (() => new Date());
  const time = (raw: string) => timeOption(raw, now());
  const delivery = program
    .command('delivery')
    .description(
      'the delivery log: every request to the webhook endpoint, provider and callback routes, accepted or refused, with its reason — and replay of a stored call on the version published now',
    );
  const filters = (command: Command) =>
    command
      .option('--company <name>', 'only deliveries to this company')
      .option('--outcome <outcome>', `${OUTCOMES.join(', ')} `, oneOf(OUTCOMES))
      .option('--reason <reason>', 'only this reason (secret_mismatch, signature_mismatch, rate_limited, …)')
      .option('--status <n>', 'only this HTTP status answered', wholeNumberIn(100, 599))
      .option('--activity <activity>', 'only this activity')
      .option('--caller <caller>', 'only this caller (user:<name>, app:<clientId>)')
      .option('--route <route>', `${ROUTES.join(', ')} `, oneOf(ROUTES))
      .option('--since <time>', 'received at or after: ISO 8601 or a duration ago (24h, 7d)', time)
      .option('--until <time>', 'received before: ISO 8601 or a duration ago', time);

  rpcCommand(runtime, filters(delivery.command('list')), {
    description: 'deliveries, newest first (a row with COUNT > 1 counts refused calls beyond the flood bound)',
    options: (command) =>
      command
        .option('--limit <n>', 'at most this many (1..1000, default 100)', positiveInt)
        .option('--page-token <token>', 'the next page (printed under a full page)'),
    response: ListDeliveriesResponseSchema,
    call: (context) => {
      const options = context.options as FilterOptions & { limit?: number; pageToken?: string };
      return context.client().listDeliveries({
        filter: filterOf(options),
        limit: options.limit ?? 0,
        pageToken: options.pageToken ?? '',
      });
    },
    lines: ({ deliveries, nextPageToken }) => [
      ...tableOr(
        'No deliveries match.',
        ['ID', 'TIME', 'ROUTE', 'COMPANY', 'ACTIVITY', 'CALLER', 'OUTCOME', 'REASON', 'STATUS', 'COUNT', 'EXECUTION'],
        deliveries.map(row),
      ),
      ...(nextPageToken ? [`More: --page-token ${nextPageToken}`] : []),
    ],
  });

  rpcCommand(runtime, delivery.command('show').argument('<id>', 'the delivery id (delivery list)'), {
    description: 'one delivery with its headers (credentials redacted) and, where payloads are shown, its body',
    response: GetDeliveryResponseSchema,
    call: (context, id: string) => context.client().getDelivery({ id }),
    lines: ({ delivery: d, headers, body, bodyEncoding, query, payloadWithheld }) => [
      ...table(
        ['FIELD', 'VALUE'],
        [
          ['id', d!.id],
          ['received', timeText(d!.receivedAt)],
          ['route', d!.route],
          ['company', d!.company || '-'],
          ['activity', d!.activity || '-'],
          ['caller', d!.caller || '-'],
          ['sender', d!.sender || '-'],
          ['outcome', d!.outcome],
          ['reason', d!.reason || '-'],
          ['status', String(d!.status)],
          ['answer', d!.answer || '-'],
          ['latency', d!.count > 1 ? '-' : `${d!.latencyMs} ms`],
          ['request id', d!.requestId || '-'],
          ['execution', d!.executionId || '-'],
          ['count', String(d!.count)],
          ...(query ? [['query', query]] : []),
        ],
      ),
      '',
      ...tableOr(
        'No headers kept.',
        ['HEADER', 'VALUE'],
        headers.map((h) => [h.name, h.value]),
      ),
      '',
      payloadWithheld
        ? 'Body: withheld (the flow does not log payloads; replay with --reveal as an admin)'
        : body
          ? `Body (${bodyEncoding}):\n${body}`
          : 'Body: none kept (only accepted calls to the endpoint and provider routes keep one)',
    ],
  });

  delivery
    .command('replay')
    .description(
      'run a stored call again as a new execution on the flow version published now, as its original caller (one by id, or every accepted one a filter matches); a provider delivery is not verified again',
    )
    .argument('[id]', 'the delivery to replay; without it, --company and the filters choose')
    .option('--reveal', 'for a doNotLogPayload flow: take the payload from the original execution (admins; audited)')
    .option('--company <name>', 'bulk: deliveries of this company (required without an id)')
    .option('--reason <reason>', 'bulk: only this reason')
    .option('--status <n>', 'bulk: only this HTTP status', wholeNumberIn(100, 599))
    .option('--activity <activity>', 'bulk: only this activity')
    .option('--caller <caller>', 'bulk: only this caller')
    .option('--route <route>', 'bulk: endpoint or provider', oneOf(['endpoint', 'provider']))
    .option('--since <time>', 'bulk: received at or after (ISO 8601 or a duration ago)', time)
    .option('--until <time>', 'bulk: received before', time)
    .option(
      '--max <n>',
      'bulk: refuse when more than this many match (default 100, at most 1000)',
      wholeNumberIn(1, 1000),
    )
    .option('--dry-run', 'bulk: count and list what would be replayed; start nothing')
    .option('--yes', 'replay (without it nothing starts)')
    .option('--json', 'print the response as JSON')
    .action(
      adminAction(runtime, async (context, id?: string) => {
        const { io, json } = context;
        const options = context.options as FilterOptions & {
          reveal?: boolean;
          max?: number;
          dryRun?: boolean;
          yes?: boolean;
        };
        const reveal = options.reveal === true;
        if (id !== undefined) {
          if (options.company || options.dryRun || options.max !== undefined)
            throw new UsageError('a delivery id replays that delivery; drop --company, --dry-run and --max');
          await requireYes(
            context,
            () =>
              `not replayed: delivery ${id} would run again as a new execution on the version published now. Confirm with --yes`,
          );
          // Named in the request, the company is on the audit record of the replay (the engine checks it is the delivery's).
          const { delivery: found } = await context.client().getDelivery({ id });
          const response = await context.client().replayDelivery({ id, company: found?.company ?? '', reveal });
          return printResponse(io, json, ReplayDeliveryResponseSchema, response, () => [
            `Replayed ${response.deliveryId} as ${response.executionId} (flow version ${response.flowVersion}).`,
          ]);
        }
        if (!options.company) throw new UsageError('give a delivery id, or --company (and filters) to replay many');
        const request = { filter: filterOf({ ...options, outcome: undefined }), maxCount: options.max ?? 0, reveal };
        if (options.dryRun === true) {
          const listed = await context.client().replayDeliveries({ ...request, dryRun: true });
          return printResponse(io, json, ReplayDeliveriesResponseSchema, listed, () => [
            `${listed.matched} deliver${listed.matched === 1 ? 'y' : 'ies'} would be replayed${listed.matched > listed.deliveries.length ? ` (${listed.deliveries.length} listed)` : ''}.`,
            ...(listed.deliveries.length ? table(HEADERS, listed.deliveries.map(row)) : []),
          ]);
        }
        await requireYes(context, async () => {
          const listed = await context.client().replayDeliveries({ ...request, dryRun: true });
          return `not replayed: ${listed.matched} deliver${listed.matched === 1 ? 'y matches' : 'ies match'}. Check with --dry-run, then confirm with --yes`;
        });
        // The engine paces starts (re-run pace), so the call lasts up to max seconds: the CLI's usual 60 s would cut it short.
        const response = await context
          .client()
          .replayDeliveries(request, { timeoutMs: 60_000 + (request.maxCount || DEFAULT_MAX) * 1000 });
        printResponse(io, json, ReplayDeliveriesResponseSchema, response, () => [
          `Replayed ${response.started.length} of ${response.matched} deliveries.`,
          ...(response.started.length
            ? table(
                ['DELIVERY', 'EXECUTION', 'VERSION'],
                response.started.map((s) => [s.deliveryId, s.executionId, String(s.flowVersion)]),
              )
            : []),
          ...response.skipped.map((s) => `Skipped ${s.deliveryId}: ${s.reason}`),
        ]);
      }),
    );
}

const HEADERS = [
  'ID',
  'TIME',
  'ROUTE',
  'COMPANY',
  'ACTIVITY',
  'CALLER',
  'OUTCOME',
  'REASON',
  'STATUS',
  'COUNT',
  'EXECUTION',
];

function row(d: Delivery): string[] {
  return [
    d.id,
    timeText(d.receivedAt),
    d.route,
    d.company || '-',
    d.activity || '-',
    d.caller || (d.count > 1 ? `(${d.sender || 'any sender'})` : '-'),
    d.outcome,
    d.reason || '-',
    String(d.status),
    String(d.count),
    d.executionId || '-',
  ];
}

function filterOf(options: FilterOptions): MessageInitShape<typeof DeliveryFilterSchema> {
  return {
    company: options.company ?? '',
    outcome: options.outcome?.toLowerCase() ?? '',
    reason: options.reason ?? '',
    status: options.status ?? 0,
    activity: options.activity ?? '',
    caller: options.caller ?? '',
    route: options.route?.toLowerCase() ?? '',
    since: options.since,
    until: options.until,
  };
}
