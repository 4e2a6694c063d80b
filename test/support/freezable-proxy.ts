// A TCP proxy in front of PostgreSQL that can go silent: frozen connections
// stop forwarding bytes both ways but stay open, as through a network
// partition with no FIN or RST, or a proxy that stops forwarding. Nothing
// errors on either side — the case a LISTEN connection cannot notice by itself.
import net from 'node:net';

export interface ProxiedConnection {
  /** The port the proxy connects to PostgreSQL from: pg_stat_activity's client_port. */
  readonly upstreamPort: number | undefined;
  /** What the client has sent so far (the first 64 KiB, as latin1), to pick connections by the SQL they ran. */
  readonly clientSent: string;
  readonly frozen: boolean;
}

export interface FreezableProxy {
  /** The database URL with host and port replaced by the proxy's. */
  readonly url: string;
  readonly connections: readonly ProxiedConnection[];
  /** Freezes the open connections that match (all by default); returns how many. New connections still flow. */
  freeze(which?: (connection: ProxiedConnection) => boolean): number;
  /** Freezes every open connection and every new one, until thawed: a full partition. */
  partition(): void;
  /** Everything flows again; connections closed on one side meanwhile now close on the other. */
  thaw(): void;
  close(): Promise<void>;
}

const RECORDED_BYTES = 64 * 1024;

interface Pipe extends ProxiedConnection {
  frozen: boolean;
  clientSent: string;
  freeze(): void;
  thaw(): void;
  destroy(): void;
}

export async function startFreezableProxy(databaseUrl: string): Promise<FreezableProxy> {
  const target = new URL(databaseUrl);
  const pipes = new Set<Pipe>();
  let partitioned = false;

  const server = net.createServer((client) => {
    const upstream = net.connect({ host: target.hostname, port: Number(target.port || 5432) });
    const pipe = joinSockets(client, upstream, () => pipes.delete(pipe));
    pipes.add(pipe);
    if (partitioned) pipe.freeze();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);

  return {
    url: url.toString(),
    get connections() {
      return [...pipes];
    },
    freeze(which = () => true) {
      const chosen = [...pipes].filter((pipe) => !pipe.frozen && which(pipe));
      chosen.forEach((pipe) => pipe.freeze());
      return chosen.length;
    },
    partition() {
      partitioned = true;
      pipes.forEach((pipe) => pipe.freeze());
    },
    thaw() {
      partitioned = false;
      pipes.forEach((pipe) => pipe.thaw());
    },
    async close() {
      pipes.forEach((pipe) => pipe.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Forwards bytes between two sockets until either closes; frozen, it reads nothing and passes on no close. */
function joinSockets(client: net.Socket, upstream: net.Socket, onClosed: () => void): Pipe {
  let closedSide = false;
  const pipe: Pipe = {
    frozen: false,
    clientSent: '',
    get upstreamPort() {
      return upstream.localPort;
    },
    freeze() {
      pipe.frozen = true;
      client.pause();
      upstream.pause();
    },
    thaw() {
      pipe.frozen = false;
      if (closedSide) return pipe.destroy();
      client.resume();
      upstream.resume();
    },
    destroy() {
      client.destroy();
      upstream.destroy();
      onClosed();
    },
  };
  client.on('data', (chunk: Buffer) => {
    if (pipe.clientSent.length < RECORDED_BYTES)
      pipe.clientSent += chunk.toString('latin1').slice(0, RECORDED_BYTES - pipe.clientSent.length);
    upstream.write(chunk);
  });
  upstream.on('data', (chunk: Buffer) => client.write(chunk));
  const sideClosed = () => {
    closedSide = true;
    if (!pipe.frozen) pipe.destroy();
  };
  for (const socket of [client, upstream]) {
    socket.on('error', () => undefined);
    socket.on('close', sideClosed);
  }
  return pipe;
}
