// The Temporal CLI cannot bind port 0 and tell us the port it got, so tests
// ask the OS for a free loopback port first. There is a small window in which
// someone else may take it; tests accept that.
import { connect, createServer } from 'node:net';

// Ports this process has handed out already. The OS may return a port again as
// soon as it is released, and a caller usually binds it only later (another
// process, a second server): two of our servers must never be given the same
// one, or a readiness probe talks to the wrong server.
const handedOut = new Set<number>();

export async function findFreePort(host = '127.0.0.1'): Promise<number> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = await askForPort(host);
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('the OS kept returning ports this process has already handed out');
}

function askForPort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen({ host, port: 0, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error('the OS returned no port'))));
    });
  });
}

/**
 * Throws a clear error when `port` is taken. Checked before starting a server,
 * because a readiness probe would otherwise happily talk to whatever already
 * listens there while our own process dies.
 */
export function assertPortFree(host: string, port: number, what: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new Error(
              `${what}: port ${port} on ${host} is already in use (another instance still running?); choose another port or stop that process`,
            )
          : new Error(`${what}: cannot bind ${host}:${port}: ${error.message}`),
      );
    });
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve()));
  });
}

/** True when something accepts TCP connections on host:port right now. */
export function canConnect(host: string, port: number, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}
