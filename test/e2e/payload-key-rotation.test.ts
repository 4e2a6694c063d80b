// Payload key rotation with engine and worker as real processes reading a
// payload key file: a doNotLogPayload execution started under the first key
// sleeps through `flowhook payload-key rotate` and a restart of engine and
// worker, then completes; its whole history (old key and new) still decrypts,
// a new execution is written under the new key only, and a payload taken from
// one execution's history is refused when decoded for another.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { fromJson } from '@bufbuild/protobuf';
import { Client, Connection } from '@temporalio/client';
import type { Payload } from '@temporalio/common';
import test from 'ava';
import { createAdminClient } from '../../bin/cli/admin-client.ts';
import { canConnect } from '../../bin/embedded/free-port.ts';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { flowDataConverter, PayloadEncryptionCodec } from '../../workflows/codec/payload-codec.ts';
import { PayloadKeyring, readKeyFile, readPayloadKeyring } from '../../workflows/codec/payload-keyring.ts';
import { payloadConverter } from '../../flow/payload-converter.ts';
import { eventually } from '../support/eventually.ts';
import { historyText } from '../support/history-text.ts';
import { startProcessStack } from '../support/process-stack.ts';
import { testInfrastructure } from '../support/stack.ts';
import { flow } from '../support/webhook-helpers.ts';

const FLOWHOOK = fileURLToPath(new URL('../../bin/flowhook', import.meta.url));
const COMPANY = 'Rotation Co';

test('a rotated payload key: the sleeping execution completes, its old history decrypts, new ones use the new key, swaps are refused', async (t) => {
  const folder = mkdtempSync(join(tmpdir(), 'payload-key-rotation-'));
  const keyFile = join(folder, 'payload-key');
  writeFileSync(keyFile, `${randomBytes(32).toString('base64')}\n`, { mode: 0o600 });
  const firstRing = readPayloadKeyring({ FLOWHOOK_PAYLOAD_KEY_FILE: keyFile })!;
  // The stack's default FLOWHOOK_PAYLOAD_KEY is emptied: engine and worker read the file.
  const stack = await startProcessStack({ env: { FLOWHOOK_PAYLOAD_KEY: '', FLOWHOOK_PAYLOAD_KEY_FILE: keyFile } });
  const { temporalAddress } = testInfrastructure();
  const connection = await Connection.connect({ address: temporalAddress });
  let keys: Buffer[];
  try {
    const admin = createAdminClient({ engineUrl: stack.engineUrl, adminToken: stack.env.FLOWHOOK_ADMIN_TOKEN });
    await admin.createCompany({ name: COMPANY });
    const { accessKey } = await admin.createUser({ name: 'rotation-user', company: COMPANY });
    const auth = `Basic ${Buffer.from(`rotation-user:${accessKey}`).toString('base64')}`;
    const { secret } = await admin.applyFlow({
      flow: fromJson(
        FlowSchema,
        flow(COMPANY, 'sleeper', { activity: 'rotation.sleeper', doNotLogPayload: true }, [
          { set: { description: 'Read the card', variables: { number: '${Trigger.Payload.card}' } } },
          { sleep: { description: 'Sleep through the rotation', duration: '6s' } },
          { log: { description: 'Note the card', message: 'charged {{Variables.number}}' } },
        ]) as never,
      ),
      publish: true,
    });
    const post = (card: string) =>
      fetch(`${stack.facadeUrl}/BC/ODataV4/flowWebhook_Invoke?company=${encodeURIComponent(COMPANY)}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: auth },
        body: JSON.stringify({ activity: 'rotation.sleeper', secret, payload: { card } }),
      });
    const start = async (card: string) => {
      const response = await post(card);
      t.true(response.ok, await response.text());
      return response.headers.get('x-flowhook-execution-id')!;
    };

    const oldCard = `CARD-${randomBytes(8).toString('hex')}`;
    const sleeping = await start(oldCard);
    // The worker has run the first workflow task under the first key once the timer is in the history.
    await until(async () => /TIMER_STARTED|TimerStarted/.test(await historyText(sleeping)), 'the sleep step starts');

    t.is(await stack.terminate('worker'), 0);
    t.is(await stack.terminate('engine'), 0);
    const rotation = JSON.parse(
      (await promisify(execFile)(process.execPath, [FLOWHOOK, 'payload-key', 'rotate', '--file', keyFile, '--json']))
        .stdout,
    ) as {
      currentKeyId: string;
      retiredKeyIds: string[];
    };
    t.deepEqual(rotation.retiredKeyIds, [firstRing.current.id]);
    keys = readKeyFile(keyFile);
    const ring = new PayloadKeyring(keys);
    t.is(ring.current.id, rotation.currentKeyId);
    stack.launch('engine');
    await until(() => canConnect('127.0.0.1', Number(new URL(stack.engineUrl).port)), 'the restarted engine listens');
    stack.launch('worker');

    // The sleeping execution completes on the restarted worker, which writes under the new key.
    const client = new Client({ connection, dataConverter: flowDataConverter(ring) });
    const result = (await client.workflow.getHandle(sleeping).result()) as { steps: { type: string; note?: string }[] };
    t.is(result.steps.find((step) => step.type === 'log')?.note, 'withheld (doNotLogPayload)');
    const oldHistory = await encryptedPayloads(sleeping);
    t.deepEqual(
      new Set(oldHistory.map(keyIdOf)),
      new Set([firstRing.current.id, ring.current.id]),
      'the history holds payloads of both keys',
    );
    const codec = new PayloadEncryptionCodec(ring);
    const context = { type: 'workflow', namespace: 'default', workflowId: sleeping } as const;
    const decoded = await codec.decode(oldHistory, context);
    t.true(
      decoded.some((payload) => JSON.stringify(payloadConverter.fromPayload(payload)).includes(oldCard)),
      'the input, written under the retired key, decrypts',
    );
    t.false((await historyText(sleeping)).includes(oldCard));
    // The first ring alone cannot read what the restarted worker wrote: the key really changed.
    await t.throwsAsync(new PayloadEncryptionCodec(firstRing).decode(oldHistory, context), {
      message: new RegExp(`key ${ring.current.id}: it is not in the payload keyring`),
    });

    // A new execution, started by the restarted engine: the new key only.
    const fresh = await until(async () => {
      const response = await post(`CARD-${randomBytes(8).toString('hex')}`).catch(() => undefined);
      return response?.ok ? response.headers.get('x-flowhook-execution-id')! : undefined;
    }, 'the restarted engine takes webhook calls');
    await client.workflow.getHandle(fresh).result();
    const freshHistory = await encryptedPayloads(fresh);
    t.true(freshHistory.length > 0);
    t.deepEqual(new Set(freshHistory.map(keyIdOf)), new Set([ring.current.id]));

    // A payload of the first execution copied into the second's is refused, though the ring holds its key.
    const bound = oldHistory.find((payload) => payload.metadata!['encryption-workflow-id'])!;
    t.is(Buffer.from(bound.metadata!['encryption-workflow-id']!).toString(), sleeping);
    await t.throwsAsync(codec.decode([bound], { type: 'workflow', namespace: 'default', workflowId: fresh }), {
      message: /bound to another execution/,
    });
  } finally {
    await connection.close();
    await stack.stop();
    rmSync(folder, { recursive: true, force: true });
  }
  t.is(keys.length, 2);
  for (const key of keys) t.false(stack.output().includes(key.toString('base64')), 'no key in any log line');
});

/** Every `binary/encrypted` payload of the execution's history, as `temporal workflow show` prints it. */
async function encryptedPayloads(workflowId: string): Promise<Payload[]> {
  const { temporalAddress, temporalCli } = testInfrastructure();
  const { stdout } = await promisify(execFile)(
    temporalCli,
    ['workflow', 'show', '--workflow-id', workflowId, '--address', temporalAddress, '--output', 'json'],
    {
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const found: Payload[] = [];
  JSON.parse(stdout, (_key, value: unknown) => {
    const candidate = value as { metadata?: Record<string, string>; data?: string } | null;
    if (
      candidate &&
      typeof candidate === 'object' &&
      candidate.metadata?.encoding &&
      Buffer.from(candidate.metadata.encoding, 'base64').toString() === 'binary/encrypted'
    ) {
      found.push({
        metadata: Object.fromEntries(
          Object.entries(candidate.metadata).map(([name, text]) => [name, Buffer.from(text, 'base64')]),
        ),
        data: Buffer.from(candidate.data ?? '', 'base64'),
      });
    }
    return value;
  });
  return found;
}

function keyIdOf(payload: Payload): string {
  return Buffer.from(payload.metadata!['encryption-key-id']!).toString();
}

/** Waits for `probe` to yield a value (not undefined or false) and returns it. */
function until<T>(probe: () => Promise<T | undefined | false>, what: string, timeoutMs = 60_000): Promise<T> {
  return eventually(probe, {
    until: (value) => value !== undefined && value !== false,
    timeoutMs,
    intervalMs: 250,
    what,
  }) as Promise<T>;
}
