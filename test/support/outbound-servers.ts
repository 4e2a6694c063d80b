// Hostile and helpful HTTP servers on loopback for the outbound-safety tests:
// one answers each path with what a route says (redirects, headers, bodies),
// records every request, and can serve a gzip bomb or an endless stream.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Route = (request: SeenRequest, response: ServerResponse) => void;

export interface RouteServer {
  url: string;
  port: number;
  seen: SeenRequest[];
  route(path: string, handler: Route): void;
  close(): Promise<void>;
}

export async function startRouteServer(): Promise<RouteServer> {
  const routes = new Map<string, Route>();
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      seen.push(request);
      const handler = routes.get((req.url ?? '').split('?')[0]!);
      if (handler) handler(request, res);
      else res.writeHead(404).end('no route');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    seen,
    route: (path, handler) => void routes.set(path, handler),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export const redirectTo =
  (location: string, status = 302): Route =>
  (_request, response) => {
    response.writeHead(status, { location }).end();
  };

export const json =
  (value: unknown, status = 200): Route =>
  (_request, response) => {
    response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
  };

/** Echoes what arrived, so a flow can show which headers and body reached this hop. */
export const echo: Route = (request, response) => {
  response
    .writeHead(200, { 'content-type': 'application/json' })
    .end(JSON.stringify({ method: request.method, headers: request.headers, body: request.body }));
};

/**
 * A gzip answer that inflates to `inflatedMiB` MiB of zeros, built from
 * repeated gzip members of 16 MiB each (valid gzip: members may follow each
 * other), so it costs the server almost nothing to send.
 */
export function gzipBomb(inflatedMiB: number): Route {
  const member = gzipSync(Buffer.alloc(16 * 1024 * 1024), { level: 9 });
  return (_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
    let left = Math.ceil(inflatedMiB / 16);
    const pump = () => {
      while (left > 0) {
        left--;
        if (!response.write(member)) return void response.once('drain', pump);
      }
      response.end();
    };
    response.on('close', () => (left = 0));
    pump();
  };
}

/** An answer that never ends: 64 KiB chunks until the client goes away. */
export const endlessStream: Route = (_request, response) => {
  response.writeHead(200, { 'content-type': 'text/plain' });
  const chunk = Buffer.alloc(64 * 1024, 'a');
  let open = true;
  response.on('close', () => (open = false));
  const pump = () => {
    while (open) {
      if (!response.write(chunk)) return void response.once('drain', pump);
    }
  };
  pump();
};
