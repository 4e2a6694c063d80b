// The HTTP(S) listener of a browser-facing server in the engine process (the
// codec server, the console): HTTPS with the engine's certificate when it has
// one, plain HTTP otherwise (loopback, or a proxy that terminates TLS).
import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { EngineServerTls } from '../rpc/engine-tls.ts';

export interface WebServerOptions {
  host: string;
  /** 0: any free port (tests). */
  port: number;
  tls?: EngineServerTls;
  handler: RequestListener;
  /** The port is taken: the port to listen on instead (0: any free one), or the error to fail with. */
  portTaken(): number | Error;
  /** How long a request may take to arrive; unset: Node's default. */
  requestTimeoutMs?: number;
}

export interface WebServer {
  port: number;
  /** e.g. http://127.0.0.1:8234: the server as a client on this host reaches it. */
  url: string;
  /** Stops listening and ends every open connection. */
  close(): Promise<void>;
}

export async function startWebServer(options: WebServerOptions): Promise<WebServer> {
  const { tls, handler } = options;
  const server: Server = tls
    ? createHttpsServer({ cert: tls.cert, key: tls.key, minVersion: 'TLSv1.2' }, handler)
    : createHttpServer(handler);
  if (options.requestTimeoutMs !== undefined) server.requestTimeout = options.requestTimeoutMs;
  try {
    await listen(server, options.port, options.host);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    const instead = options.portTaken();
    if (instead instanceof Error) throw instead;
    await listen(server, instead, options.host);
  }
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `${tls ? 'https' : 'http'}://${connectableHost(options.host)}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** The host of a URL that reaches a listener on `host`: a wildcard address is reached on loopback; IPv6 in brackets. */
function connectableHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::' || host === '[::]') return '[::1]';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
}
