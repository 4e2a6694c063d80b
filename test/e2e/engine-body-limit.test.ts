// Authenticate before reading (issue 12): a call with a wrong token is
// refused on its headers, before its body is read — a 100 MB body changes
// nothing in the engine's memory — and a call with a right token still reads
// no more than the facade's body limit plus the envelope.
import test, { type ExecutionContext } from 'ava';
import { connect, constants, type ClientHttp2Stream } from 'node:http2';
import { readFileSync } from 'node:fs';
import { startProcessStack, type ProcessStack } from '../support/process-stack.ts';

let stack: ProcessStack;

test.before(async () => {
  stack = await startProcessStack({ env: { FLOWHOOK_LOG_LEVEL: 'warn' } });
});
test.after.always(async () => stack?.stop());

const HUNDRED_MB = 100 * 1024 * 1024;
const CHUNK = Buffer.alloc(1024 * 1024, 0x61);

/** The engine's resident memory and its peak so far, in MiB. */
function engineMemory(): { rss: number; peak: number } {
  const status = readFileSync(`/proc/${stack.pid('engine')}/status`, 'utf8');
  const field = (name: string) => Math.round(Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0) / 1024);
  return { rss: field('VmRSS'), peak: field('VmHWM') };
}

interface Sent {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** What the client managed to hand to the socket before the engine answered and stopped the stream. */
  bytesWritten: number;
}

/** POSTs up to 100 MB as a Connect unary call (JSON), respecting flow control, until the engine answers. */
function sendHugeBody(authorization: string | undefined): Promise<Sent> {
  return new Promise((resolve, reject) => {
    const session = connect(stack.engineUrl);
    session.on('error', () => undefined);
    const stream: ClientHttp2Stream = session.request({
      [constants.HTTP2_HEADER_METHOD]: 'POST',
      [constants.HTTP2_HEADER_PATH]: '/flowhook.engine.v1.WebhookService/Invoke',
      'content-type': 'application/json',
      ...(authorization ? { authorization } : {}),
    });
    let bytesWritten = 0;
    let answered = false;
    let status = 0;
    let headers: Sent['headers'] = {};
    let body = '';
    stream.on('response', (received) => {
      answered = true;
      status = Number(received[':status']);
      headers = received;
    });
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => (body += chunk));
    // The answer is complete: stop sending (the engine resets the stream after such an answer as well; this client does not wait for it).
    stream.on('end', () => stream.close(constants.NGHTTP2_CANCEL));
    stream.on('error', () => undefined);
    stream.on('close', () => {
      session.close();
      if (!answered) reject(new Error(`no answer after ${bytesWritten} bytes`));
      else resolve({ status, headers, body, bytesWritten });
    });
    const pump = () => {
      while (!answered && !stream.destroyed && bytesWritten < HUNDRED_MB) {
        bytesWritten += CHUNK.length;
        if (!stream.write(CHUNK)) return void stream.once('drain', pump);
      }
      if (!stream.destroyed && !answered) stream.end();
    };
    pump();
  });
}

function assertFlat(t: ExecutionContext, before: { peak: number }, why: string): void {
  const after = engineMemory();
  t.log(`${why}: engine peak RSS ${before.peak} → ${after.peak} MiB`);
  // A buffered 100 MB body (or its decompression) would show up here many times over.
  t.true(after.peak - before.peak < 40, `${why}: peak grew from ${before.peak} to ${after.peak} MiB`);
}

test.serial('a wrong token with a 100 MB body is refused on its headers; engine memory stays flat', async (t) => {
  const before = engineMemory();
  for (const authorization of [undefined, `Bearer fhsa_${'x'.repeat(43)}`]) {
    const sent = await sendHugeBody(authorization);
    // 401, not resource_exhausted: the token was judged before the body (which a read would have found too big).
    t.is(sent.status, 401);
    t.is(JSON.parse(sent.body).code, 'unauthenticated');
    t.log(
      `${authorization ? 'wrong' : 'no'} token: the client got ${(sent.bytesWritten / 1024 / 1024).toFixed(0)} MiB out before the refusal`,
    );
    t.true(sent.bytesWritten < 8 * 1024 * 1024, `${sent.bytesWritten} bytes were accepted`);
  }
  assertFlat(t, before, 'wrong token');
});

test.serial('a right token still reads no more than the body limit plus the envelope', async (t) => {
  const before = engineMemory();
  const sent = await sendHugeBody(`Bearer ${stack.tokens.internal}`);
  t.not(sent.status, 200);
  t.is(JSON.parse(sent.body).code, 'resource_exhausted');
  assertFlat(t, before, 'right token, oversized body');
});
