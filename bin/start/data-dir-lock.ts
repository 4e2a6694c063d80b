// One `flowhook start` per data directory. A second one on the same directory
// used to take the first one's PostgreSQL for a crashed run's leftover, stop
// it, and leave the live instance answering 503. So start first takes a lock:
// a Unix socket in the data directory that the live instance listens on.
//
// The kernel is the judge, not a PID guess: while the holder lives, a connect
// succeeds and it answers with its PID; once it died (even by kill -9) the
// connect is refused and the socket file is only a leftover, removed and
// taken over. Only after the lock is held does start clear what an earlier,
// dead run left behind (a postmaster, a dev server): those can no longer
// belong to a live instance.
import { createHash } from 'node:crypto';
import { createConnection, createServer, type Server } from 'node:net';
import { realpathSync, rmSync } from 'node:fs';
import { join } from 'node:path';

export interface DataDirLock {
  release(): Promise<void>;
}

/** Thrown when a live `flowhook start` holds the directory. */
export class DataDirBusyError extends Error {
  readonly holderPid: number | undefined;
  constructor(dataDir: string, holderPid: number | undefined) {
    super(
      `another flowhook start (${holderPid === undefined ? 'pid unknown' : `pid ${holderPid}`}) is running on ${dataDir}: ` +
        'stop it first (Ctrl-C in its terminal), or give this one another FLOWHOOK_DATA_DIR',
    );
    this.name = 'DataDirBusyError';
    this.holderPid = holderPid;
  }
}

// Unix socket paths are limited to 107 bytes; a deeper data directory gets an
// abstract socket (Linux) named by its hash instead, which the kernel frees the same way.
const MAX_SOCKET_PATH = 100;

export function lockSocketOf(dataDir: string): string {
  const path = join(dataDir, 'start.lock');
  return Buffer.byteLength(path) <= MAX_SOCKET_PATH
    ? path
    : `\0flowhook-start:${createHash('sha256').update(realpathSync(dataDir)).digest('hex')}`;
}

export async function lockDataDir(dataDir: string): Promise<DataDirLock> {
  const socket = lockSocketOf(dataDir);
  const server = createServer((connection) => connection.end(`${process.pid}\n`));
  // The lock must never keep the process alive on its own.
  server.unref();
  try {
    await listen(server, socket);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw error;
    const holder = await askHolder(socket);
    if (holder.alive) throw new DataDirBusyError(dataDir, holder.pid);
    // Nobody listens: a run that died left the file. Take it over. (An abstract socket
    // has no file: the kernel freed it with its holder, so it is never found dead.)
    if (!socket.startsWith('\0')) rmSync(socket, { force: true });
    try {
      await listen(server, socket);
    } catch (again) {
      // Two starts raced for the same leftover: the other one won.
      if ((again as NodeJS.ErrnoException).code === 'EADDRINUSE')
        throw new DataDirBusyError(dataDir, (await askHolder(socket)).pid);
      throw again;
    }
  }
  return {
    release: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
      }),
  };
}

function listen(server: Server, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen({ path, readableAll: false, writableAll: false }, () => {
      server.off('error', onError);
      resolve();
    });
  });
}

/** Connects to the socket: alive when something accepts, with the PID it tells. */
function askHolder(path: string): Promise<{ alive: boolean; pid?: number }> {
  return new Promise((resolve) => {
    const connection = createConnection({ path });
    let text = '';
    connection.setTimeout(2000, () => {
      // Accepted but silent: something holds the socket; it counts as alive.
      connection.destroy();
      resolve({ alive: true });
    });
    connection.on('data', (chunk) => (text += chunk.toString()));
    connection.on('end', () => {
      const pid = Number.parseInt(text, 10);
      resolve({ alive: true, ...(Number.isInteger(pid) && pid > 0 && { pid }) });
    });
    connection.on('error', (error: NodeJS.ErrnoException) =>
      resolve({ alive: error.code !== 'ECONNREFUSED' && error.code !== 'ENOENT' }),
    );
  });
}
