// Admission control: a rate per caller, a rate per activity, a cap on
// sync calls waiting at once and a rate for the callback URL route. A refused call gets 429 with Retry-After in the
// OData error shape and starts nothing.
import test, { type ExecutionContext } from 'ava';
import { Code, ConnectError } from '@connectrpc/connect';
import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { INSTANCE, startStack, type TestStack } from '../support/stack.ts';
import { startTargetServer, type TargetServer } from '../support/target-server.ts';
import {
  callWebhook,
  countVisibleExecutions,
  engineWebhookClient,
  createTenant,
  deployFlow,
  flow,
  type Tenant,
  type WebhookAnswer,
} from '../support/webhook-helpers.ts';

let stack: TestStack;
let tenant: Tenant;
let slowTarget: TargetServer;
let callbackTarget: TargetServer;
const secrets: Record<string, string> = {};

test.before(async () => {
  stack = await startStack({
    env: {
      // Slow refills, so a burst of calls in a test reliably runs into the limit.
      FLOWHOOK_RATE_LIMIT_PER_CALLER: '1',
      FLOWHOOK_RATE_LIMIT_PER_CALLER_BURST: '4',
      FLOWHOOK_RATE_LIMIT_PER_ACTIVITY: '1',
      FLOWHOOK_RATE_LIMIT_PER_ACTIVITY_BURST: '3',
      FLOWHOOK_MAX_CONCURRENT_SYNC_CALLS: '1',
      FLOWHOOK_RATE_LIMIT_CALLBACKS: '1',
      FLOWHOOK_RATE_LIMIT_CALLBACKS_BURST: '3',
    },
  });
  tenant = await createTenant(stack);
  for (const activity of ['limit.caller', 'limit.activity', 'limit.other', 'limit.guarded']) {
    secrets[activity] = (
      await deployFlow(stack, flow(tenant.company, activity.replace('.', '-'), { activity }, []))
    ).secret;
  }
  slowTarget = await startTargetServer(() => ({ delayMs: 2000 }));
  callbackTarget = await startTargetServer();
  secrets['limit.callback'] = (
    await deployFlow(
      stack,
      flow(tenant.company, 'limit-callback', { activity: 'limit.callback' }, [
        {
          httpRequest: {
            description: 'hand out the callback URL',
            method: 'POST',
            url: `${callbackTarget.url}/start/{{Execution.Id}}`,
            body: '${Callbacks.paid.url}',
          },
        },
        { name: 'paid', waitForCallback: { description: 'wait for the provider', timeout: '60s' } },
      ]),
    )
  ).secret;
  secrets['limit.slow'] = (
    await deployFlow(
      stack,
      flow(tenant.company, 'limit-slow', { activity: 'limit.slow', responseMode: 'WAIT_FOR_RESPONSE_STEP' }, [
        { httpRequest: { description: 'keep the caller waiting', method: 'GET', url: `${slowTarget.url}/slow` } },
        { respond: { statusCode: 200, body: 'done' } },
      ]),
    )
  ).secret;
});
test.after.always(async () => {
  await stack?.close();
  await slowTarget?.close();
  await callbackTarget?.close();
});

async function newCaller(): Promise<string> {
  const userName = `svc-${Math.random().toString(36).slice(2, 8)}`;
  const { accessKey } = await stack.admin.createUser({
    name: userName,
    company: tenant.company,
    permissionSet: 'FLOW ALL',
  });
  return `Basic ${Buffer.from(`${userName}:${accessKey}`).toString('base64')}`;
}

const call = (activity: string, auth: string) =>
  callWebhook(stack, { company: tenant.company, activity, secret: secrets[activity]!, auth });

function assertRefused(t: ExecutionContext, answer: WebhookAnswer, message: RegExp): void {
  t.is(answer.status, 429);
  const retryAfter = Number(answer.headers.get('retry-after'));
  t.true(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After: ${answer.headers.get('retry-after')}`);
  const error = JSON.parse(answer.text).error;
  t.is(error.code, 'TooManyRequests');
  t.regex(error.message, message);
  t.is(answer.executionId, null);
}

test.serial('a caller over its rate gets 429 with Retry-After, and the refused call starts nothing', async (t) => {
  const auth = await newCaller();
  // At once, so the buckets (1 token a second) cannot refill between the calls however slow the machine.
  const answers = await Promise.all(Array.from({ length: 5 }, () => call('limit.caller', auth)));
  const accepted = answers.filter((a) => a.status === 200);
  const refused = answers.filter((a) => a.status !== 200);
  t.is(accepted.length, 3);
  // The fourth call to arrive fits the caller's burst but not the activity's; the fifth fits neither.
  t.is(refused.length, 2);
  const messageOf = (answer: WebhookAnswer) =>
    (JSON.parse(answer.text) as { error: { message: string } }).error.message;
  const byActivity = refused.find((a) => /activity "limit\.caller"/.test(messageOf(a)));
  const byCaller = refused.find((a) => /caller "user:svc-/.test(messageOf(a)));
  t.truthy(byActivity && byCaller, refused.map((a) => a.text).join('\n'));
  assertRefused(t, byActivity!, /activity "limit\.caller"/);
  assertRefused(t, byCaller!, /caller "user:svc-/);
  t.is(await countVisibleExecutions(stack, 'limit.caller', 3), 3);
  // Another caller is not affected by the first one's budget (only by the activity's).
  t.is((await call('limit.other', await newCaller())).status, 200);
});

test.serial("an activity's rate is shared by all callers; other activities keep theirs", async (t) => {
  const callers = await Promise.all(Array.from({ length: 4 }, () => newCaller()));
  // At once, so the activity's bucket (1 token a second) cannot refill between the calls however slow the machine.
  const statuses = (await Promise.all(callers.map((auth) => call('limit.activity', auth)))).map((a) => a.status);
  t.deepEqual(
    statuses.sort((a, b) => a - b),
    [200, 200, 200, 429],
  );
  t.is((await call('limit.other', await newCaller())).status, 200);
  t.is(await countVisibleExecutions(stack, 'limit.activity', 3), 3);
  // The bucket refills: after the advertised wait the activity answers again (the time passing is the
  // refill itself, so it is waited out; polling would spend the refilled token).
  await new Promise((resolve) => setTimeout(resolve, 1100));
  t.is((await call('limit.activity', await newCaller())).status, 200);
});

test.serial(
  'sync calls beyond the cap are refused at once while the slot is taken, and accepted again after',
  async (t) => {
    const first = call('limit.slow', await newCaller());
    // The first call holds the only slot once its flow's slow request reached the target.
    await slowTarget.waitFor('/slow');
    const started = performance.now();
    const second = await call('limit.slow', await newCaller());
    assertRefused(t, second, /waiting for a flow's response/);
    t.true(performance.now() - started < 1500, 'refused without waiting for the slot');
    const firstAnswer = await first;
    t.is(firstAnswer.status, 200);
    t.is(firstAnswer.value!.body, 'done');
    t.is((await call('limit.slow', await newCaller())).status, 200);
    t.is(await countVisibleExecutions(stack, 'limit.slow', 2), 2);
  },
);

test.serial(
  'the engine refuses with ResourceExhausted and the wait as retry-after metadata (what the facade turns into Retry-After)',
  async (t) => {
    const userName = `svc-${Math.random().toString(36).slice(2, 8)}`;
    const { accessKey } = await stack.admin.createUser({
      name: userName,
      company: tenant.company,
      permissionSet: 'FLOW ALL',
    });
    const webhook = engineWebhookClient(stack);
    const invoke = () =>
      webhook.invoke({
        company: tenant.company,
        activity: 'limit.other',
        secret: secrets['limit.other']!,
        payloadJson: '{}',
        caller: { identity: { case: 'basic', value: { userName, accessKey } } },
      });
    const outcomes = await Promise.allSettled([invoke(), invoke(), invoke(), invoke(), invoke()]);
    const refused = outcomes
      .filter((o) => o.status === 'rejected')
      .map((o) => ConnectError.from((o as PromiseRejectedResult).reason));
    t.true(refused.length >= 1);
    for (const error of refused) {
      t.is(error.code, Code.ResourceExhausted);
      t.regex(error.metadata.get('retry-after') ?? '', /^[1-9][0-9]*$/);
    }
  },
);

test.serial("calls with a wrong secret do not use up an activity's budget", async (t) => {
  const wrong = await Promise.all(
    [1, 2, 3, 4, 5].map(
      async () =>
        (
          await callWebhook(stack, {
            company: tenant.company,
            activity: 'limit.guarded',
            secret: 'not-the-secret',
            auth: await newCaller(),
          })
        ).status,
    ),
  );
  t.deepEqual(wrong, [401, 401, 401, 401, 401]);
  t.is((await call('limit.guarded', await newCaller())).status, 200);
});

/** POSTs `{}` to a callback URL from one loopback address: each address is a sender of its own. */
function postCallbackFrom(
  localAddress: string,
  token: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; retryAfter?: string; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${stack.facadeUrl}/${INSTANCE}/callbacks/${token}`,
      { method: 'POST', localAddress, headers: { 'content-type': 'application/json', ...headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'],
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end('{}');
  });
}

test.serial(
  'a sender guessing callback tokens gets 429 past FLOWHOOK_RATE_LIMIT_CALLBACKS, and never refuses a real callback from another sender',
  async (t) => {
    // A real wait: the flow hands its callback URL to the target and waits for it.
    const started = await call('limit.callback', await newCaller());
    t.is(started.status, 200);
    const token = /\/callbacks\/([A-Za-z0-9_-]{43})$/.exec(
      (await callbackTarget.waitFor(`/start/${started.executionId}`)).body,
    )?.[1];
    t.truthy(token);

    const guesser = '127.0.0.2';
    // Malformed tokens are refused as unknown ones and count for nothing.
    for (let i = 0; i < 5; i++) t.is((await postCallbackFrom(guesser, 'not-a-token')).status, 404);
    const statuses: number[] = [];
    let refused: Awaited<ReturnType<typeof postCallbackFrom>> | undefined;
    for (let i = 0; i < 6; i++) {
      const answer = await postCallbackFrom(guesser, randomBytes(32).toString('base64url'));
      statuses.push(answer.status);
      if (answer.status === 429) refused = answer;
    }
    // The burst of 3 unknown tokens (maybe one more refilled meanwhile), then refusals before any lookup.
    t.deepEqual(statuses.slice(0, 3), [404, 404, 404]);
    t.is(statuses.at(-1), 429, statuses.join(','));
    t.true(Number(refused!.retryAfter) >= 1, `Retry-After: ${refused!.retryAfter}`);
    t.regex(refused!.text, /FLOWHOOK_RATE_LIMIT_CALLBACKS/);
    // Writing another address into X-Forwarded-For changes nothing: no proxy is trusted.
    t.is(
      (await postCallbackFrom(guesser, randomBytes(32).toString('base64url'), { 'x-forwarded-for': '198.51.100.1' }))
        .status,
      429,
    );

    // Meanwhile the provider's callback, from another address, is delivered.
    const delivered = await postCallbackFrom('127.0.0.1', token!);
    t.is(delivered.status, 202, delivered.text);
    await stack.temporal.workflow.getHandle(started.executionId!).result();
  },
);
