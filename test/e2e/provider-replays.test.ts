// Replays on the provider route (issue 25, point 6). GitHub's and Shopify's
// delivery ids, and the event id header of an `hmac` route without {id}, are
// unsigned: whoever captured a delivery can replay it with that header changed
// or dropped. Such a replay must join the first execution — never start a
// second one — and after Temporal dropped the first execution it is refused,
// because the engines remember the delivery (FLOWHOOK_HOOK_REPLAY_WINDOW).
// Requests are signed for real (test/support/provider-signers.ts) and sent
// through the facade.
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import test from 'ava';
import { Code, ConnectError } from '@connectrpc/connect';
import { WorkflowNotFoundError } from '@temporalio/client';
import { readEngineConfig } from '../../engine/config.ts';
import { purgeDeliveries } from '../../engine/domain/direct/delivery-memory.ts';
import { defaultOf } from '../../common/configuration/configuration-table.ts';
import { runEngine } from '../../engine/main.ts';
import { eventually } from '../support/eventually.ts';
import { INSTANCE, startStack, type TestStack } from '../support/stack.ts';
import { deployFlow, engineWebhookClient, flow } from '../support/webhook-helpers.ts';
import {
  GENERIC_HMAC,
  signGenericHmac,
  signGithubRequest,
  signShopify,
  signSlack,
  textSecret,
  type Signer,
} from '../support/provider-signers.ts';

const COMPANY = 'Replays Ltd.';
let stack: TestStack;

/** The generic scheme over the body alone, with an unsigned event id header: `x-signature: <hex HMAC-SHA256 of the body>`. */
const PLAIN_HMAC = { header: 'x-signature', eventIdHeader: 'x-event-id' };
const signPlainHmac: Signer = async (body, secret, options = {}) => ({
  'x-signature': createHmac('sha256', secret).update(body).digest('hex'),
  'x-event-id': options.id ?? randomUUID(),
});

interface Route {
  activity: string;
  verify: Record<string, unknown>;
  sign: Signer;
  secret: string;
  /** The unsigned headers that name the delivery. */
  idHeaders: string[];
  instant?: boolean;
}

const routes: Record<'github' | 'shopify' | 'plainHmac' | 'timedHmac' | 'slack' | 'githubInstant', Route> = {
  github: {
    activity: 'github.replays',
    verify: { github: {} },
    sign: signGithubRequest,
    secret: textSecret(),
    idHeaders: ['x-github-delivery'],
  },
  shopify: {
    activity: 'shopify.replays',
    verify: { shopify: {} },
    sign: signShopify,
    secret: textSecret(),
    idHeaders: ['x-shopify-webhook-id', 'x-shopify-event-id'],
  },
  plainHmac: {
    activity: 'hmac.replays',
    verify: { hmac: PLAIN_HMAC },
    sign: signPlainHmac,
    secret: textSecret(),
    idHeaders: ['x-event-id'],
  },
  timedHmac: {
    activity: 'hmac.timed',
    verify: { hmac: GENERIC_HMAC },
    sign: signGenericHmac,
    secret: textSecret(),
    idHeaders: ['x-event-id'],
  },
  slack: { activity: 'slack.forms', verify: { slack: {} }, sign: signSlack, secret: textSecret(), idHeaders: [] },
  githubInstant: {
    activity: 'github.instant',
    verify: { github: {} },
    sign: signGithubRequest,
    secret: textSecret(),
    idHeaders: ['x-github-delivery'],
    instant: true,
  },
};

// What the flow answers: the execution and the event id it saw.
const ECHO = [
  {
    respond: {
      description: 'Echo',
      statusCode: 200,
      contentType: 'application/json',
      body: '${ {"execution": Execution.Id, "eventId": Trigger.Provider.EventId} }',
    },
  },
];

test.before(async () => {
  stack = await startStack();
  await stack.admin.createCompany({ name: COMPANY });
  for (const route of Object.values(routes)) {
    const mode = route.instant
      ? { defaultResponseStatusCode: 202 }
      : { responseMode: 'WAIT_FOR_RESPONSE_STEP', syncTimeoutSeconds: 20 };
    await deployFlow(
      stack,
      flow(
        COMPANY,
        route.activity.replace('.', '-'),
        { activity: route.activity, direct: { verify: route.verify }, ...mode },
        ECHO,
      ),
    );
    await stack.admin.setHookSecret({ company: COMPANY, activity: route.activity, secret: route.secret });
  }
});
test.after.always(async () => {
  await stack?.close();
});

interface Answer {
  status: number;
  text: string;
  executionId: string | null;
}

async function post(route: Route, body: string, headers: Record<string, string>): Promise<Answer> {
  const url = `${stack.facadeUrl}/${INSTANCE}/hooks/${encodeURIComponent(COMPANY)}/${encodeURIComponent(route.activity)}`;
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
  return {
    status: response.status,
    text: await response.text(),
    executionId: response.headers.get('x-flowhook-execution-id'),
  };
}

const pushBody = () =>
  JSON.stringify({ ref: 'refs/heads/main', after: randomBytes(20).toString('hex'), pusher: { name: 'octocat' } });
const without = (headers: Record<string, string>, names: string[]) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name)));
const only = (headers: Record<string, string>, names: string[]) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => names.includes(name)));

/** The captured delivery, replayed with its unsigned id headers changed and dropped, and sent again as is (a genuine redelivery). */
async function replays(route: Route, body: string, headers: Record<string, string>): Promise<[string, Answer][]> {
  const changed = {
    ...headers,
    ...Object.fromEntries(route.idHeaders.map((name) => [name, `forged-${randomUUID()}`])),
  };
  return [
    ['id header changed', await post(route, body, changed)],
    ['id header dropped', await post(route, body, without(headers, route.idHeaders))],
    ['redelivered as is', await post(route, body, headers)],
  ];
}

async function isGone(executionId: string): Promise<boolean> {
  try {
    await stack.temporal.workflow.getHandle(executionId).describe();
    return false;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) return true;
    throw error;
  }
}

/** Deletes the execution as Temporal's retention would, and waits until Temporal no longer has it. */
async function dropExecution(executionId: string): Promise<void> {
  await stack.temporal.workflowService.deleteWorkflowExecution({
    namespace: stack.temporal.options.namespace,
    workflowExecution: { workflowId: executionId },
  });
  await eventually(() => isGone(executionId), {
    timeoutMs: 120_000,
    intervalMs: 250,
    what: `Temporal no longer has ${executionId}`,
  });
}

for (const [name, route] of [
  ['GitHub', routes.github],
  ['Shopify', routes.shopify],
  ['hmac without {id} or {timestamp}', routes.plainHmac],
] as const) {
  test(`${name}: a captured delivery replayed with its delivery id header changed or dropped joins the first execution; so does a genuine redelivery`, async (t) => {
    const body = pushBody();
    const headers = await route.sign(body, route.secret);
    const first = await post(route, body, headers);
    t.is(first.status, 200, first.text);
    // The flow still sees the (unsigned) header's value as its event id.
    t.is(JSON.parse(first.text).eventId, headers[route.idHeaders[0]!]);
    for (const [why, answer] of await replays(route, body, headers)) {
      t.is(answer.status, 200, `${why}: ${answer.text}`);
      t.is(answer.executionId, first.executionId, `${why}: no second execution`);
      t.is(answer.text, first.text, `${why}: the first execution's answer, the first event id`);
    }
    // Another body carrying the same id header is a delivery of its own: the unsigned id decides nothing.
    const otherBody = pushBody();
    const other = await post(route, otherBody, {
      ...(await route.sign(otherBody, route.secret)),
      ...only(headers, route.idHeaders),
    });
    t.is(other.status, 200, other.text);
    t.not(other.executionId, first.executionId);
  });
}

test('hmac with {timestamp} but an unsigned id: a replay inside the tolerance with another id joins; a re-signed retry is a new delivery', async (t) => {
  const route = routes.timedHmac;
  const body = pushBody();
  const headers = await route.sign(body, route.secret);
  const first = await post(route, body, headers);
  t.is(first.status, 200, first.text);
  for (const [why, answer] of await replays(route, body, headers)) {
    t.is(answer.executionId, first.executionId, `${why}: ${answer.status} ${answer.text}`);
    t.is(answer.text, first.text, why);
  }
  // Signed anew (another timestamp) with the same unsigned id: nothing signed says it is the same event.
  const resigned = await post(route, body, {
    ...(await route.sign(body, route.secret, { timestamp: Math.floor(Date.now() / 1000) - 7 })),
    'x-event-id': headers['x-event-id']!,
  });
  t.is(resigned.status, 200, resigned.text);
  t.not(resigned.executionId, first.executionId);
});

test('Slack: a form post (no event id) replayed inside the tolerance joins the first execution', async (t) => {
  const route = routes.slack;
  const form = `command=%2Fdeploy&text=${randomUUID()}&trigger_id=${randomUUID()}`;
  const headers = { ...(await route.sign(form, route.secret)), 'content-type': 'application/x-www-form-urlencoded' };
  const first = await post(route, form, headers);
  t.is(first.status, 200, first.text);
  const again = await post(route, form, headers);
  t.is(again.executionId, first.executionId, again.text);
  t.is(again.text, first.text);
});

test('once Temporal no longer keeps the first execution, a replay is refused (409) and starts nothing; after FLOWHOOK_HOOK_REPLAY_WINDOW it is new again', async (t) => {
  const deliveries = await Promise.all(
    [routes.github, routes.githubInstant].map(async (route) => {
      const body = pushBody();
      const headers = await route.sign(body, route.secret);
      const first = await post(route, body, headers);
      t.is(first.status, route.instant ? 202 : 200, first.text);
      const executionId = first.executionId!;
      await stack.temporal.workflow.getHandle(executionId).result();
      // Both at once: Temporal deletes asynchronously (tens of seconds on the dev server).
      await dropExecution(executionId);
      return { route, body, headers, executionId };
    }),
  );
  for (const { route, body, headers, executionId } of deliveries) {
    for (const [why, answer] of await replays(route, body, headers)) {
      t.is(answer.status, 409, `${route.activity}, ${why}: ${answer.text}`);
      t.is(JSON.parse(answer.text).error.code, 'Conflict', why);
      t.regex(JSON.parse(answer.text).error.message, /accepted earlier .* no longer keeps; nothing was started/, why);
      t.is(answer.executionId, null, why);
    }
    t.true(await isGone(executionId), `${route.activity}: nothing was started under the first execution's id`);
  }
  // Another engine of the cluster (same database and Temporal) remembers them as well.
  const second = await runEngine(
    readEngineConfig({ ...stack.env, FLOWHOOK_ENGINE_PORT: '0', FLOWHOOK_ENGINE_METRICS_PORT: '0' }),
  );
  try {
    const viaSecond = engineWebhookClient({ ...stack, engineUrl: `http://127.0.0.1:${second.port}` });
    for (const { route, body, headers, executionId } of deliveries) {
      const replayed = Object.entries({
        ...headers,
        'content-type': 'application/json',
        'x-github-delivery': `forged-${randomUUID()}`,
      }).map(([name, value]) => ({ name, value }));
      const refused = await t.throwsAsync(
        viaSecond.invokeDirect({
          company: COMPANY,
          activity: route.activity,
          method: 'POST',
          headers: replayed,
          body: Buffer.from(body),
        }),
      );
      t.is(
        ConnectError.from(refused).code,
        Code.FailedPrecondition,
        `${route.activity} through a second engine: ${refused?.message}`,
      );
      t.true(await isGone(executionId));
    }
  } finally {
    await second.close();
  }

  // Past the window (aged here instead of waited for), the purge deletes them and the engines have forgotten the deliveries: they run again.
  // Rows are keyed by the SHA-256 of the execution id (storage/provider-delivery.entity.ts).
  const keys = deliveries.map(({ executionId }) => createHash('sha256').update(executionId).digest('hex'));
  await stack.engine.orm.em
    .getConnection()
    .execute(`update "provider_delivery" set "received_at" = now() - interval '31 days' where "key" in (?, ?)`, keys);
  t.is(await purgeDeliveries(stack.engine.orm, defaultOf('FLOWHOOK_HOOK_REPLAY_WINDOW')), keys.length);
  for (const { route, body, headers, executionId } of deliveries) {
    const forgotten = await post(route, body, headers);
    t.is(forgotten.status, route.instant ? 202 : 200, forgotten.text);
    t.is(forgotten.executionId, executionId);
  }
});

test('publishing refuses a signedContent whose placeholders touch, and says why', async (t) => {
  const hmac = { header: 'x-signature', signedContent: '{id}{body}', eventIdHeader: 'x-event-id' };
  const error = await t.throwsAsync(
    deployFlow(stack, flow(COMPANY, 'touching', { activity: 'hmac.touching', direct: { verify: { hmac } } }, ECHO)),
  );
  t.regex(
    error?.message ?? '',
    /signedContent: \{id\}\{body\} puts two placeholders side by side: with no text between them the boundary can move, so the same signed bytes read as many \(id, body\) pairs/,
  );
  await t.throwsAsync(stack.admin.getFlow({ company: COMPANY, name: 'touching' }));
});
