// DeliverCallback's decisions against an in-memory callback_wait table and a
// fake Temporal client: what is asked of the execution, how its refusals map
// to the engine's errors, when the table answers alone, and what it records.
import test from 'ava';
import type { MikroORM } from '@mikro-orm/postgresql';
import {
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import pino from 'pino';
import { create } from '@bufbuild/protobuf';
import { DeliverCallbackRequestSchema } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import {
  CALLBACK_ALREADY_RECEIVED,
  CALLBACK_EXPIRED,
  CALLBACK_UNKNOWN_STEP,
  type CallbackDelivery,
} from '../../flow/index.ts';
import { callbackUpdate } from '../../flow/flow-messages.ts';
import { isSensitive } from '../../flow/payload-converter.ts';
import { deliverCallback } from '../../engine/domain/callbacks/deliver-callback.ts';
import { tokenLookup, type CallbackKeys } from '../../engine/domain/callbacks/callback-digests.ts';
import { mintCallbackToken } from '../../engine/domain/callbacks/callback-tokens.ts';
import { CallbackNotFoundError, CallbackUsedError } from '../../engine/domain/callbacks/callback-refusals.ts';
import {
  FailedPreconditionError,
  NotFoundError,
  PermissionDeniedError,
  UnavailableError,
} from '../../engine/errors.ts';
import type { ServiceAccountIdentity } from '../../engine/domain/callers/service-account-tokens.ts';
import { createWebhookLimits, LimitRefusedError, type RateLimit } from '../../engine/domain/limits/webhook-limits.ts';

const OFF: RateLimit = { perSecond: 0, burst: 1 };
// The limiter's clock: tests move it by hand.
let now = 1_000_000;

interface Row {
  lookup: string;
  company: string;
  activity: string;
  executionId: string;
  step: string;
  sensitive: boolean;
  createdAt: Date;
  expiresAt: Date | null;
  usedAt: Date | null;
  answerStatus: number | null;
  bodyDigest: string | null;
}

interface Sent {
  workflowId: string;
  update: unknown;
  delivery: CallbackDelivery;
  updateId: string | undefined;
}

const EXECUTION = 'pay:0f8fad5b-d9cb-469f-a165-70867728950e';
const keys: CallbackKeys = { lookup: Buffer.alloc(32, 1), body: Buffer.alloc(32, 2) };
const account: ServiceAccountIdentity = {
  name: 'facade',
  scope: 'invoke',
  allCompanies: true,
  companyIds: [],
  forwardsCallers: true,
};

function harness(answer: (sent: Sent) => unknown, callbacks: RateLimit = { perSecond: 0, burst: 1 }) {
  const rows = new Map<string, Row>();
  const sent: Sent[] = [];
  const matches = (row: Row, where: Record<string, unknown>) =>
    Object.entries(where).every(([name, value]) => row[name as keyof Row] === value);
  const em = {
    findOne: async (_entity: unknown, where: Record<string, unknown>) => {
      // The company lookup of a company-bound account; everything else reads callback_wait.
      if ('name' in where) return where.name === 'Acme' ? { id: 'company-acme' } : null;
      const row = [...rows.values()].find((candidate) => matches(candidate, where));
      return row ? { ...row } : null;
    },
    nativeUpdate: async (_entity: unknown, where: Record<string, unknown>, data: Partial<Row>) => {
      for (const row of rows.values()) if (matches(row, where)) Object.assign(row, data);
    },
    nativeDelete: async (_entity: unknown, where: Record<string, unknown>) => {
      for (const [lookup, row] of rows) if (matches(row, where)) rows.delete(lookup);
    },
  };
  const orm = { em: { fork: () => em } } as unknown as MikroORM;
  const temporal = {
    connection: { withDeadline: (_deadline: number, call: () => Promise<unknown>) => call() },
    workflow: {
      getHandle: (workflowId: string) => ({
        executeUpdate: async (update: unknown, options: { args: [CallbackDelivery]; updateId?: string }) => {
          const call = { workflowId, update, delivery: options.args[0], updateId: options.updateId };
          sent.push(call);
          return answer(call);
        },
      }),
    },
  } as unknown as Client;
  const limits = createWebhookLimits(
    { perCaller: OFF, perActivity: OFF, maxConcurrentSyncCalls: 0, callbacks },
    () => now,
  );
  const deps = { orm, temporal, callbackKeys: keys, logger: pino({ level: 'silent' }), limits };
  const addToken = (step = 'payment', extra: Partial<Row> = {}) => {
    const token = mintCallbackToken();
    const row: Row = {
      lookup: tokenLookup(token),
      company: 'Acme',
      activity: 'pay',
      executionId: EXECUTION,
      step,
      sensitive: false,
      createdAt: new Date(),
      expiresAt: null,
      usedAt: null,
      answerStatus: null,
      bodyDigest: null,
      ...extra,
    };
    rows.set(row.lookup, row);
    return token;
  };
  const deliver = (
    token: string,
    body: string,
    headers: { name: string; value: string }[] = [],
    who = account,
    sender = '198.51.100.7',
  ) =>
    deliverCallback(
      deps,
      create(DeliverCallbackRequestSchema, { token, body: Buffer.from(body), headers, sender }),
      who,
    );
  return { rows, sent, addToken, deliver };
}

const refuse = (type: string) => {
  throw new WorkflowUpdateFailedError(
    'Workflow Update failed',
    ApplicationFailure.create({ type, message: 'refused', nonRetryable: true }),
  );
};

test('an accepted callback: the update carries step, exact body and filtered headers; every row of the step is marked used', async (t) => {
  const h = harness(() => ({ status: 200 }));
  const token = h.addToken();
  const second = h.addToken();
  const other = h.addToken('other');
  const answer = await h.deliver(token, '{ "status": "ok" }', [
    { name: 'content-type', value: 'application/json' },
    { name: 'authorization', value: 'Bearer x' },
  ]);
  t.deepEqual(answer, { executionId: EXECUTION, step: 'payment', statusCode: 200, repeated: false });
  t.is(h.sent.length, 1);
  t.is(h.sent[0]!.workflowId, EXECUTION);
  t.is(h.sent[0]!.update, callbackUpdate);
  t.deepEqual(h.sent[0]!.delivery, {
    step: 'payment',
    body: '{ "status": "ok" }',
    headers: { 'content-type': 'application/json' },
  });
  t.false(isSensitive(h.sent[0]!.delivery));
  t.regex(h.sent[0]!.updateId ?? '', /^callback-payment-[0-9a-f]{32}$/);
  const used = [...h.rows.values()].filter((row) => row.usedAt !== null);
  t.deepEqual(
    used.map((row) => row.lookup).sort(),
    [token, second].map(tokenLookup).sort(),
    'both URLs of the step, not the other step',
  );
  t.true(used.every((row) => row.answerStatus === 200 && /^[0-9a-f]{64}$/.test(row.bodyDigest ?? '')));
  t.is(h.rows.get(tokenLookup(other))!.usedAt, null);
});

test('a used URL: the same body is answered from the table as repeated, also through another URL of the step; another body is 409', async (t) => {
  const h = harness(() => ({ status: 201 }));
  const token = h.addToken();
  const second = h.addToken();
  await h.deliver(token, 'paid');
  t.deepEqual(await h.deliver(token, 'paid'), {
    executionId: EXECUTION,
    step: 'payment',
    statusCode: 201,
    repeated: true,
  });
  t.deepEqual(await h.deliver(second, 'paid'), {
    executionId: EXECUTION,
    step: 'payment',
    statusCode: 201,
    repeated: true,
  });
  const error = await t.throwsAsync(h.deliver(token, 'failed'));
  t.true(error instanceof CallbackUsedError && error instanceof FailedPreconditionError);
  t.is(error!.message, 'This callback URL has already been used');
  t.is(h.sent.length, 1, 'the execution was asked once');
});

test('the same body sent again gets the same update id (Temporal hands a retry the first outcome); another body another', async (t) => {
  const h = harness(() => {
    throw new WorkflowUpdateRPCTimeoutOrCancelledError('timeout', { cause: new Error('deadline') });
  });
  const token = h.addToken();
  await t.throwsAsync(h.deliver(token, 'a'), { instanceOf: UnavailableError, message: /did not answer in time/ });
  await t.throwsAsync(h.deliver(token, 'a'), { instanceOf: UnavailableError });
  await t.throwsAsync(h.deliver(token, 'b'), { instanceOf: UnavailableError });
  t.is(h.sent[0]!.updateId, h.sent[1]!.updateId);
  t.not(h.sent[0]!.updateId, h.sent[2]!.updateId);
  t.is(h.rows.get(tokenLookup(token))!.usedAt, null, 'nothing recorded for an unanswered update');
});

test('a doNotLogPayload execution: the delivery is marked for the codec', async (t) => {
  const h = harness(() => ({ status: 202 }));
  await h.deliver(h.addToken('payment', { sensitive: true }), 'card');
  t.true(isSensitive(h.sent[0]!.delivery));
});

test('unknown, malformed, expired, unknown step and ended executions are one 404; the dead waits are forgotten', async (t) => {
  const unknownStep = harness(() => refuse(CALLBACK_UNKNOWN_STEP));
  const expired = harness(() => refuse(CALLBACK_EXPIRED));
  const ended = harness(() => {
    throw new WorkflowNotFoundError('workflow execution already completed', EXECUTION, undefined);
  });
  const endedMeanwhile = harness(() => {
    throw new Error('Failed to update workflow', {
      cause: new Error('5 NOT_FOUND: workflow execution already completed'),
    });
  });
  const reasons: string[] = [];
  for (const [h, reason] of [
    [unknownStep, 'unknown_step'],
    [expired, 'step_expired'],
    [ended, 'execution_closed'],
    [endedMeanwhile, 'execution_closed'],
  ] as const) {
    const token = h.addToken();
    const error = await t.throwsAsync(h.deliver(token, '{}'));
    t.true(error instanceof CallbackNotFoundError && error instanceof NotFoundError, reason);
    t.is(error!.message, 'No callback waits at this URL');
    reasons.push((error as CallbackNotFoundError).refusal.reason);
    t.false(h.rows.has(tokenLookup(token)), `${reason}: forgotten`);
    await t.throwsAsync(h.deliver(token, '{}'), { message: 'No callback waits at this URL' });
    t.is(h.sent.length, 1, `${reason}: the table answers the next one`);
  }
  t.deepEqual(reasons, ['unknown_step', 'step_expired', 'execution_closed', 'execution_closed']);
  const h = harness(() => ({ status: 200 }));
  for (const token of [mintCallbackToken(), 'short', `${mintCallbackToken()}x`])
    await t.throwsAsync(h.deliver(token, '{}'), {
      instanceOf: CallbackNotFoundError,
      message: 'No callback waits at this URL',
    });
  t.is(h.sent.length, 0);
});

test('CallbackAlreadyReceived: 409, unless the table meanwhile holds this very body (a race of two deliveries)', async (t) => {
  const lost = harness(() => refuse(CALLBACK_ALREADY_RECEIVED));
  const error = await t.throwsAsync(lost.deliver(lost.addToken(), 'mine'));
  t.true(error instanceof CallbackUsedError);
  t.is((error as CallbackUsedError).refusal.reason, 'already_used');

  // What the table holds once a delivery of 'same' was accepted.
  const winner = harness(() => ({ status: 200 }));
  const shared = winner.addToken();
  await winner.deliver(shared, 'same');
  const recorded = winner.rows.get(tokenLookup(shared))!;
  // This delivery of the same body reaches the execution after the winner, and the winner's record lands meanwhile.
  let racing = '';
  const racer = harness(() => {
    Object.assign(racer.rows.get(tokenLookup(racing))!, {
      usedAt: recorded.usedAt,
      answerStatus: recorded.answerStatus,
      bodyDigest: recorded.bodyDigest,
    });
    return refuse(CALLBACK_ALREADY_RECEIVED);
  });
  racing = racer.addToken();
  t.deepEqual(await racer.deliver(racing, 'same'), {
    executionId: EXECUTION,
    step: 'payment',
    statusCode: 200,
    repeated: true,
  });
  await t.throwsAsync(racer.deliver(racing, 'other'), { instanceOf: CallbackUsedError });
});

test('Temporal unreachable is UNAVAILABLE; a body that is not UTF-8 is refused before anything is looked up', async (t) => {
  const h = harness(() => {
    throw new Error('14 UNAVAILABLE: connect ECONNREFUSED');
  });
  await t.throwsAsync(h.deliver(h.addToken(), '{}'), {
    instanceOf: UnavailableError,
    message: /Temporal is unavailable/,
  });
  // No table at all: the body is refused before the token is looked up.
  const noTable = {
    orm: { em: { fork: () => t.fail('looked up') } } as never,
    temporal: {} as never,
    callbackKeys: keys,
    logger: pino({ level: 'silent' }),
    limits: { admitCallback: () => undefined, chargeCallbackMiss: () => undefined },
  };
  await t.throwsAsync(
    deliverCallback(
      noTable,
      create(DeliverCallbackRequestSchema, { token: mintCallbackToken(), body: new Uint8Array([0xff]) }),
      account,
    ),
    {
      message: 'callback bodies must be UTF-8 text',
    },
  );
});

test("an invoke account of other companies may not deliver this company's callbacks", async (t) => {
  const h = harness(() => ({ status: 200 }));
  const limited = { ...account, allCompanies: false, companyIds: ['company-other'] };
  await t.throwsAsync(h.deliver(h.addToken(), '{}', [], limited), { instanceOf: PermissionDeniedError });
  t.is(h.sent.length, 0);
  const own = { ...account, allCompanies: false, companyIds: ['company-acme'] };
  t.is((await h.deliver(h.addToken(), '{}', [], own)).statusCode, 200);
});

test('FLOWHOOK_RATE_LIMIT_CALLBACKS: a sender past its budget of unknown tokens is refused before any lookup; known tokens and malformed ones take nothing', async (t) => {
  const h = harness(() => ({ status: 200 }), { perSecond: 1, burst: 2 });
  const unknown = () => mintCallbackToken();
  const guesser = '203.0.113.9';
  for (let i = 0; i < 5; i++)
    await t.throwsAsync(h.deliver('not-a-token', '{}', [], account, guesser), { instanceOf: CallbackNotFoundError });
  // Known tokens are never counted, however many.
  for (let i = 0; i < 5; i++) t.is((await h.deliver(h.addToken(), '{}', [], account, guesser)).statusCode, 200);
  await t.throwsAsync(h.deliver(unknown(), '{}', [], account, guesser), { instanceOf: CallbackNotFoundError });
  await t.throwsAsync(h.deliver(unknown(), '{}', [], account, guesser), { instanceOf: CallbackNotFoundError });
  const sentBefore = h.sent.length;
  const refused = await t.throwsAsync(h.deliver(h.addToken(), '{}', [], account, guesser), {
    instanceOf: LimitRefusedError,
  });
  t.is((refused as LimitRefusedError).limit, 'callbacks');
  t.is(
    refused!.message,
    'Too many callback deliveries with unknown tokens from this sender (FLOWHOOK_RATE_LIMIT_CALLBACKS); retry after 1 s',
  );
  t.is(h.sent.length, sentBefore);
  // Another sender's real callback goes through while the guesser is refused.
  t.is((await h.deliver(h.addToken(), '{}', [], account, '198.51.100.7')).statusCode, 200);
  // A caller of the engine's RPC itself (no sender) is counted as its service account.
  await t.throwsAsync(h.deliver(unknown(), '{}', [], account, ''), { instanceOf: CallbackNotFoundError });
  now += 1000;
  t.is((await h.deliver(h.addToken(), '{}', [], account, guesser)).statusCode, 200, 'a token again after a second');
});
