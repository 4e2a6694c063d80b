// What the schemas cannot say about a rendered release: that each pod's environment is one its flowhook
// process accepts, and that the pieces name each other correctly.
//
// For the container of every facade, engine and worker Deployment it checks that the root filesystem is
// read-only with emptyDir /tmp and /data, that no service links or API token reach the pod, and that
//   - each variable is one that role reads (flowhook's configuration table; on engines, admin commands too), and none
//     is retired;
//   - each secret variable comes from a Secret (`secretKeyRef`), never from a plain value;
//   - each file a variable names lies in a mounted Secret volume that projects that file;
// and then runs the role's own configuration reader (readEngineConfig, readFacadeConfig, readWorkerConfig)
// on that environment — secrets replaced by made-up values, the mounted PEM files by a throwaway CA and
// certificate — so the same refusals that would stop the process (TLS without a key, a console beyond loopback
// without https, an engine on 0.0.0.0 without TLS or FLOWHOOK_ENGINE_INSECURE …) fail the check instead.
// Across objects: probe and Service ports name container ports, Ingresses, the ServiceMonitor and the
// scalers name Services and Deployments that exist, every selector selects a pod template.
//
//   node deploy/helm/tooling/config-check.ts rendered.yaml…
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CONFIGURATION_TABLE, type SettingName } from '../../../common/configuration/configuration-table.ts';
import type { Env } from '../../../common/configuration/read-settings.ts';
import { readEngineConfig } from '../../../engine/config.ts';
import { readFacadeConfig } from '../../../facade/config.ts';
import { readWorkerConfig } from '../../../workflows/config.ts';

// The parts of Kubernetes objects read here.
type Labels = Record<string, string>;
interface EnvVar {
  name: string;
  value?: unknown;
  valueFrom?: { secretKeyRef?: { name: string; key: string } };
}
interface Probe {
  httpGet?: { port: string | number };
  grpc?: { port: number };
  tcpSocket?: { port: string | number };
}
interface Container {
  name: string;
  args?: string[];
  env?: EnvVar[];
  ports?: { name?: string; containerPort: number }[];
  volumeMounts?: { name: string; mountPath: string }[];
  securityContext?: { readOnlyRootFilesystem?: boolean };
  startupProbe?: Probe;
  livenessProbe?: Probe;
  readinessProbe?: Probe;
}
interface Volume {
  name: string;
  secret?: { secretName: string; items?: { key: string; path: string }[] };
  emptyDir?: object;
}
interface Spec {
  selector?: { matchLabels?: Labels } & Labels;
  template?: {
    metadata: { labels?: Labels };
    spec: {
      containers: Container[];
      volumes?: Volume[];
      enableServiceLinks?: boolean;
      automountServiceAccountToken?: boolean;
    };
  };
  ports?: { name: string; targetPort: string | number }[];
  rules?: { http: { paths: { backend: { service: { name: string; port: { name: string } } } }[] } }[];
  endpoints?: { port: string }[];
  scaleTargetRef?: { name: string };
  podSelector?: { matchLabels: Labels };
}
interface Manifest {
  kind: string;
  metadata: { name: string; labels?: Labels };
  spec: Spec;
}
type Role = 'engine' | 'facade' | 'worker';

const READERS: Record<Role, (env: Env) => unknown> = {
  engine: readEngineConfig,
  facade: readFacadeConfig,
  worker: readWorkerConfig,
};

/** Stand-ins for what Secrets hold, of the shape each variable's reader wants. */
const SECRET_STAND_INS: Partial<Record<SettingName, () => string>> = {
  FLOWHOOK_DATABASE_URL: () => 'postgres://flowhook:stand-in@postgres.example:5432/flowhook',
  FLOWHOOK_PAYLOAD_KEY: () => randomBytes(32).toString('base64'),
  FLOWHOOK_SECRETS_KEY: () => randomBytes(32).toString('base64'),
  OTEL_EXPORTER_OTLP_HEADERS: () => 'authorization=stand-in',
  OTEL_EXPORTER_OTLP_TRACES_HEADERS: () => 'authorization=stand-in',
};

const problems: string[] = [];
const problem = (where: string, what: string) => problems.push(`${where}: ${what}`);

const files = process.argv.slice(2);
if (files.length === 0) throw new Error('usage: config-check.ts rendered.yaml…');
const pki = makeThrowawayPki();
try {
  for (const file of files) {
    const manifests = parseAllDocuments(readFileSync(file, 'utf8'))
      .map((document) => document.toJS() as Manifest | null)
      .filter((manifest): manifest is Manifest => manifest !== null && typeof manifest.kind === 'string');
    const before = problems.length;
    const roles = checkWorkloads(manifests, file);
    checkReferences(manifests, file);
    console.log(
      `${problems.length === before ? 'ok    ' : 'FAILED'} ${file}: ${roles.join(', ')} accept their environment; ${manifests.length} objects cross-checked`,
    );
  }
} finally {
  rmSync(pki.dir, { recursive: true, force: true });
}
if (problems.length > 0) {
  for (const line of problems) console.error(`config-check: ${line}`);
  process.exit(1);
}

function checkWorkloads(manifests: Manifest[], file: string): Role[] {
  const roles: Role[] = [];
  for (const deployment of manifests.filter((manifest) => manifest.kind === 'Deployment')) {
    const pod = deployment.spec.template!.spec;
    // Service links would add variables such as FLOWHOOK_ENGINE_PORT=tcp://… for a Service named flowhook-engine.
    if (pod.enableServiceLinks !== false)
      problem(`${file} ${deployment.metadata.name}`, 'takes service links (FLOWHOOK_*_PORT=tcp://… variables)');
    if (pod.automountServiceAccountToken !== false)
      problem(`${file} ${deployment.metadata.name}`, 'mounts a Kubernetes API token it never uses');
    for (const container of pod.containers) {
      const role = container.args?.[0] as Role;
      const where = `${file} ${deployment.metadata.name}/${container.name}`;
      if (container.securityContext?.readOnlyRootFilesystem !== true) problem(where, 'the root filesystem is writable');
      for (const path of ['/tmp', '/data']) {
        const mount = container.volumeMounts?.find((candidate) => candidate.mountPath === path);
        if (!pod.volumes?.some((volume) => volume.name === mount?.name && volume.emptyDir !== undefined))
          problem(where, `${path} is no writable emptyDir`);
      }
      if (!(role in READERS)) {
        problem(where, `args ${JSON.stringify(container.args)} name no flowhook role`);
        continue;
      }
      const env = environmentOf(container, pod.volumes ?? [], role, where);
      try {
        READERS[role](env);
        roles.push(role);
      } catch (error) {
        problem(
          where,
          `flowhook ${role} refuses this environment: ${error instanceof Error ? error.message : String(error)}`,
        );
      }
    }
  }
  for (const role of Object.keys(READERS) as Role[])
    if (!roles.includes(role)) problem(file, `no ${role} Deployment accepted`);
  return roles;
}

/** The container's environment as its process would see it, with what Secrets and Secret volumes would put there. */
function environmentOf(container: Container, volumes: Volume[], role: Role, where: string): Env {
  const env: Env = {};
  for (const entry of container.env ?? []) {
    const name = entry.name as SettingName;
    const row = CONFIGURATION_TABLE[name];
    if (row === undefined) {
      problem(where, `${name} is not a variable flowhook reads`);
      continue;
    }
    // An engine container also carries what admin commands run in it (kubectl exec) read.
    const readers: readonly string[] = role === 'engine' ? ['engine', 'cli'] : [role];
    if (!(row.processes as readonly string[]).some((process) => readers.includes(process)))
      problem(where, `flowhook ${role} does not read ${name}`);
    if (row.retired !== undefined) problem(where, `${name} is retired: ${row.retired}`);
    const secretRef = entry.valueFrom?.secretKeyRef;
    if (row.secret && !secretRef)
      problem(where, `${name} is a secret but comes from a plain value, not a secretKeyRef`);
    if (secretRef) env[name] = (SECRET_STAND_INS[name] ?? (() => randomBytes(30).toString('base64url')))();
    else if (entry.valueFrom) problem(where, `${name}: only secretKeyRef is expected in valueFrom`);
    else env[name] = mountedFile(String(entry.value ?? ''), container, volumes, `${where} ${name}`);
  }
  return env;
}

/** A value under /etc/flowhook/ names a file of a Secret volume: the throwaway PEM file of the same name. */
function mountedFile(value: string, container: Container, volumes: Volume[], where: string): string {
  if (!value.startsWith('/etc/flowhook/')) return value;
  const mount = (container.volumeMounts ?? []).find((candidate) => candidate.mountPath === dirname(value));
  const volume = volumes.find((candidate) => candidate.name === mount?.name);
  if (!mount || !volume?.secret) {
    problem(where, `${value} is in no mounted Secret volume`);
    return value;
  }
  const items = volume.secret.items ?? [];
  if (items.length > 0 && !items.some((item) => item.path === basename(value)))
    problem(where, `Secret volume ${volume.name} projects no ${basename(value)}`);
  const standIn = pki.files[basename(value)];
  if (standIn === undefined) problem(where, `no stand-in for ${basename(value)}`);
  return standIn ?? value;
}

function checkReferences(manifests: Manifest[], file: string): void {
  const all = (kind: string) => manifests.filter((manifest) => manifest.kind === kind);
  const deployments = all('Deployment');
  const services = all('Service');
  const selects = (selector: Labels = {}, labels: Labels = {}) =>
    Object.entries(selector).every(([key, value]) => labels[key] === value);
  const podsOf = (selector: Labels | undefined) =>
    deployments.filter((deployment) => selects(selector, deployment.spec.template!.metadata.labels));
  const portNames = (deployment: Manifest) =>
    deployment.spec.template!.spec.containers.flatMap((container) => container.ports ?? []);
  for (const deployment of deployments) {
    const where = `${file} Deployment/${deployment.metadata.name}`;
    if (!selects(deployment.spec.selector?.matchLabels, deployment.spec.template!.metadata.labels))
      problem(where, 'its selector does not select its own pods');
    for (const container of deployment.spec.template!.spec.containers) {
      for (const probeName of ['startupProbe', 'livenessProbe', 'readinessProbe'] as const) {
        const probe = container[probeName];
        const port = probe?.httpGet?.port ?? probe?.grpc?.port ?? probe?.tcpSocket?.port;
        if (port === undefined) problem(where, `${container.name} has no ${probeName}`);
        else if (
          !portNames(deployment).some((candidate) => candidate.name === port || candidate.containerPort === port)
        )
          problem(where, `${probeName} names port ${port}, which ${container.name} does not open`);
      }
    }
  }
  for (const service of services) {
    const where = `${file} Service/${service.metadata.name}`;
    const pods = podsOf(service.spec.selector);
    if (pods.length === 0) problem(where, 'selects no pod template');
    for (const port of service.spec.ports ?? []) {
      if (!pods.every((pod) => portNames(pod).some((candidate) => candidate.name === port.targetPort)))
        problem(where, `targetPort ${port.targetPort} is not a port of the pods it selects`);
    }
  }
  const servicePort = (name: string, port: string) =>
    services.some(
      (service) =>
        service.metadata.name === name && (service.spec.ports ?? []).some((candidate) => candidate.name === port),
    );
  for (const ingress of all('Ingress')) {
    for (const rule of ingress.spec.rules ?? []) {
      for (const path of rule.http.paths) {
        const { name, port } = path.backend.service;
        if (!servicePort(name, port.name))
          problem(`${file} Ingress/${ingress.metadata.name}`, `backend ${name}:${port.name} is no Service port`);
      }
    }
  }
  for (const monitor of all('ServiceMonitor')) {
    const matched = services.filter((service) => selects(monitor.spec.selector?.matchLabels, service.metadata.labels));
    if (matched.length !== 3)
      problem(
        `${file} ServiceMonitor/${monitor.metadata.name}`,
        `selects ${matched.length} Services, not the three roles'`,
      );
    for (const endpoint of monitor.spec.endpoints ?? []) {
      for (const service of matched)
        if (!servicePort(service.metadata.name, endpoint.port))
          problem(`${file} ServiceMonitor`, `${service.metadata.name} has no port ${endpoint.port}`);
    }
  }
  for (const scaler of [...all('HorizontalPodAutoscaler'), ...all('ScaledObject')]) {
    if (!deployments.some((deployment) => deployment.metadata.name === scaler.spec.scaleTargetRef?.name))
      problem(`${file} ${scaler.kind}/${scaler.metadata.name}`, 'scales no Deployment of the release');
  }
  for (const budget of all('PodDisruptionBudget')) {
    if (podsOf(budget.spec.selector?.matchLabels).length !== 1)
      problem(`${file} PodDisruptionBudget/${budget.metadata.name}`, 'does not select exactly one Deployment');
  }
  for (const policy of all('NetworkPolicy')) {
    if (podsOf(policy.spec.podSelector?.matchLabels).length !== 1)
      problem(`${file} NetworkPolicy/${policy.metadata.name}`, 'does not select exactly one Deployment');
  }
}

/** A CA and a certificate it signed (with its key), as ca.crt, tls.crt and tls.key: what the chart's Secret volumes hold. */
function makeThrowawayPki(): { dir: string; files: Record<string, string> } {
  const dir = mkdtempSync(join(tmpdir(), 'flowhook-config-check-'));
  const key = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-noenc'];
  const openssl = (...args: string[]) =>
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  openssl('req', '-x509', ...key, '-days', '2', '-subj', '/CN=config-check CA', '-keyout', 'ca.key', '-out', 'ca.crt');
  openssl(
    'req',
    '-x509',
    ...key,
    '-days',
    '2',
    '-subj',
    '/CN=flowhook',
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-addext',
    'subjectAltName=DNS:flowhook',
    '-keyout',
    'tls.key',
    '-out',
    'tls.crt',
  );
  return {
    dir,
    files: { 'ca.crt': join(dir, 'ca.crt'), 'tls.crt': join(dir, 'tls.crt'), 'tls.key': join(dir, 'tls.key') },
  };
}
