// The Temporal server's configuration files (temporal-server.ts starts it): its services' ports —
// membership ports below 32768, as Temporal stores them in a smallint column — the server's YAML
// config, with persistence and visibility in PostgreSQL, and its dynamic config.
import { assertPortFree, findFreePort } from './free-port.ts';
import { TRANSFER_QUEUE_READS_PER_SECOND } from './temporal-dev-server.ts';

const HOST = '127.0.0.1';
/** The server's two databases on the PostgreSQL it is given. */
export const DATABASES = { temporal: 'temporal', visibility: 'temporal_visibility' } as const;

export type ServicePorts = Record<
  | 'frontendHttp'
  | 'frontendMembership'
  | 'history'
  | 'historyMembership'
  | 'matching'
  | 'matchingMembership'
  | 'worker'
  | 'workerMembership',
  number
>;

export async function servicePorts(): Promise<ServicePorts> {
  const ports: Partial<ServicePorts> = {};
  for (const name of ['frontendHttp', 'history', 'matching', 'worker'] as const) ports[name] = await findFreePort();
  // Membership ports are stored in a smallint column of the cluster_membership table: below 32768,
  // where the kernel's ephemeral ports (what findFreePort gets) usually are not.
  const taken = new Set<number>();
  for (const name of ['frontendMembership', 'historyMembership', 'matchingMembership', 'workerMembership'] as const) {
    ports[name] = await freePortBelow32768(taken);
    taken.add(ports[name]);
  }
  return ports as ServicePorts;
}

async function freePortBelow32768(taken: Set<number>): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (taken.has(port)) continue;
    try {
      await assertPortFree(HOST, port, 'Temporal membership');
      return port;
    } catch {
      // Taken: try another.
    }
  }
  throw new Error("no free port between 20000 and 32000 for the Temporal server's membership");
}

export function serverConfig(
  postgres: URL,
  ports: ServicePorts & { frontend: number },
  shards: number,
  dynamicConfigFile: string,
): string {
  const store = (database: string, maxConns: number) => `
      sql:
        pluginName: postgres12
        databaseName: ${database}
        connectAddr: ${JSON.stringify(`${postgres.hostname}:${postgres.port || '5432'}`)}
        connectProtocol: tcp
        user: ${JSON.stringify(decodeURIComponent(postgres.username))}
        password: ${JSON.stringify(decodeURIComponent(postgres.password))}
        maxConns: ${maxConns}
        maxIdleConns: ${maxConns}
        maxConnLifetime: 1h`;
  const service = (grpc: number, membership: number, http?: number) => `
    rpc:
      grpcPort: ${grpc}
      membershipPort: ${membership}
      bindOnLocalHost: true${http ? `\n      httpPort: ${http}` : ''}`;
  return `# Written by flowhook at each start (bin/embedded/temporal-server.ts); edits are overwritten.
log:
  stdout: true
  level: warn
  format: json
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: ${shards}
  datastores:
    postgres-default:${store(DATABASES.temporal, 20)}
    postgres-visibility:${store(DATABASES.visibility, 4)}
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: ${HOST}
services:
  frontend:${service(ports.frontend, ports.frontendMembership, ports.frontendHttp)}
  history:${service(ports.history, ports.historyMembership)}
  matching:${service(ports.matching, ports.matchingMembership)}
  worker:${service(ports.worker, ports.workerMembership)}
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: ${JSON.stringify(`${HOST}:${ports.frontend}`)}
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: ${JSON.stringify(dynamicConfigFile)}
  pollInterval: 10s
`;
}

export function dynamicConfig(settings: Record<string, unknown>): string {
  const all: Record<string, unknown> = {
    // A freshly created search attribute is usable at once (tests register and use them within seconds).
    'system.forceSearchAttributesCacheRefreshOnRead': true,
    // Task dispatch fair between fairness keys (flowhook sets one per company), not first come first served.
    'matching.enableFairness': true,
    // Fairness holds within a partition; one write partition makes it exact (reads still drain all).
    'matching.numTaskqueueWritePartitions': 1,
    // Few shards (flowhook's own server has four): the default 20 reads a second of each shard's
    // transfer queue put up to 50 ms between one workflow's task and the next (temporal-dev-server.ts).
    'history.transferProcessorMaxPollRPS': TRANSFER_QUEUE_READS_PER_SECOND,
    ...settings,
  };
  return Object.entries(all)
    .map(([key, value]) => `${key}:\n  - value: ${JSON.stringify(value)}\n`)
    .join('');
}
