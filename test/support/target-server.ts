// A local HTTP server that flows call with httpRequest steps: records every
// request and answers after an optional delay, so tests can prove what ran
// after the caller was answered.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  at: number;
}

export interface TargetServer {
  url: string;
  received: ReceivedRequest[];
  /** Resolves with the first request whose path starts with `path`. */
  waitFor(path: string, timeoutMs?: number): Promise<ReceivedRequest>;
  close(): Promise<void>;
}

export async function startTargetServer(
  answer: (request: ReceivedRequest) => {
    status?: number;
    body?: string;
    contentType?: string;
    delayMs?: number;
  } = () => ({}),
): Promise<TargetServer> {
  const received: ReceivedRequest[] = [];
  const waiters: { path: string; resolve: (r: ReceivedRequest) => void }[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request: ReceivedRequest = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      received.push(request);
      for (const waiter of waiters.filter((w) => request.path.startsWith(w.path))) waiter.resolve(request);
      const reply = answer(request);
      setTimeout(() => {
        res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'application/json' });
        res.end(reply.body ?? '{"ok":true}');
      }, reply.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    waitFor(path, timeoutMs = 20_000) {
      const already = received.find((r) => r.path.startsWith(path));
      if (already) return Promise.resolve(already);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no request to ${path} within ${timeoutMs} ms`)), timeoutMs);
        waiters.push({
          path,
          resolve: (r) => {
            clearTimeout(timer);
            resolve(r);
          },
        });
      });
    },
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
