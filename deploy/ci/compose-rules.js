// What deploy/compose.yaml and deploy/compose.lite.yaml promise beyond the Compose specification,
// checked on the projects as compose-config rendered them (JSON: interpolated with a generated
// deploy/.env, paths resolved). deploy/ci/compose-check.sh runs it:
//
//   node deploy/ci/compose-rules.js <rendered project.json>…
//
// - every secret is a file that exists and is not empty; every bind-mounted file exists; every
//   declared secret, volume and network is used; services that depend on each other share a network;
// - every image has a pinned tag: flowhook's is package.json's version, Temporal's the server
//   release the project tests (bin/embedded/temporal-server-install.ts); every published port is
//   bound to loopback by default;
// - every variable a flowhook container is given is a setting of the configuration table
//   (common/configuration/) that its role reads, and its value parses as that role would parse it;
//   a file it names is mounted (a secret, or a volume at /data); engine, workers and clients agree
//   (namespace, task queue, payload keys, the engine's address and TLS);
// - temporal-init registers exactly flowhook's search attributes, with their types;
// - the paths inside the flowhook image that the files use are the image's (deploy/image/).
// Prints one line per broken rule and exits 1, or prints what it checked and exits 0.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const { CONFIGURATION_TABLE } = await import(join(ROOT, 'common/configuration/configuration-table.ts'));
const { parseSetting } = await import(join(ROOT, 'common/configuration/read-settings.ts'));
const { SEARCH_ATTRIBUTES } = await import(join(ROOT, 'flow/search-attribute-keys.ts'));
const { TEMPORAL_SERVER_VERSION } = await import(join(ROOT, 'bin/embedded/temporal-server-install.ts'));

const VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
const IMAGE_NODE = '/app/node_modules/node/bin/node';
const IMAGE_HEALTHCHECK = '/app/deploy/image/healthcheck.js';
const ROLES = new Set(['engine', 'facade', 'worker', 'start']);
/** Variables of the flowhook image's own (deploy/image/build-image.sh), not operators' settings. */
const IMAGE_VARIABLES = new Set(['PATH']);

const problems = [];
const checked = new Set();
const problem = (where, message) => problems.push(`${where}: ${message}`);

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node deploy/ci/compose-rules.js <rendered project.json>…');
  process.exit(2);
}
for (const file of files) checkProject(JSON.parse(readFileSync(file, 'utf8')));
checkSearchAttributes();
checkImagePaths();

if (problems.length > 0) {
  for (const line of problems) console.error(`compose-rules: ${line}`);
  process.exit(1);
}
console.log(`compose-rules: ${[...checked].join('; ')}: ok`);

function checkProject(project) {
  const services = Object.entries(project.services ?? {});
  const used = { secrets: new Set(), volumes: new Set(), networks: new Set() };
  for (const [name, service] of services) {
    const where = `${project.name}/${name}`;
    for (const secret of service.secrets ?? []) used.secrets.add(secret.source);
    for (const mount of service.volumes ?? []) {
      if (mount.type === 'volume' && mount.source) used.volumes.add(mount.source);
      if (mount.type === 'bind' && !existsSync(mount.source))
        problem(where, `bind-mounts ${mount.source}, which does not exist`);
    }
    for (const network of Object.keys(service.networks ?? {})) used.networks.add(network);
    checkImage(where, service.image);
    for (const port of service.ports ?? []) {
      if (port.host_ip !== '127.0.0.1')
        problem(
          where,
          `publishes ${port.target} on ${port.host_ip || 'every interface'}; by default a port is published on 127.0.0.1`,
        );
    }
    for (const [dependency] of Object.entries(service.depends_on ?? {})) {
      const other = project.services[dependency];
      const shared = Object.keys(service.networks ?? {}).filter((network) => network in (other?.networks ?? {}));
      if (other && service.network_mode === undefined && shared.length === 0)
        problem(where, `depends on ${dependency} but shares no network with it`);
    }
    if (isFlowhook(service.image)) checkFlowhookService(where, service, project);
  }
  for (const [name, secret] of Object.entries(project.secrets ?? {})) {
    if (!used.secrets.has(name)) problem(project.name, `secret ${name} is declared but no service uses it`);
    if (!secret.file) problem(project.name, `secret ${name} is not read from a file`);
    else if (!existsSync(secret.file) || statSync(secret.file).size === 0)
      problem(
        project.name,
        `secret ${name}: ${secret.file} is missing or empty (compose/secrets/generate.sh makes it)`,
      );
  }
  for (const name of Object.keys(project.volumes ?? {}))
    if (!used.volumes.has(name)) problem(project.name, `volume ${name} is declared but no service mounts it`);
  for (const name of Object.keys(project.networks ?? {}))
    if (name !== 'default' && !used.networks.has(name))
      problem(project.name, `network ${name} is declared but no service joins it`);
  checkAgreement(project);
  checked.add(`${project.name}: ${services.length} services`);
}

function isFlowhook(image) {
  return /(^|\/)flowhook:/.test(image ?? '');
}

function checkImage(where, image) {
  const match = /^(?<name>[^@]+?)(?::(?<tag>[\w][\w.-]*))?(?:@sha256:[0-9a-f]{64})?$/.exec(image ?? '');
  const tag = match?.groups?.tag;
  if (!tag || tag === 'latest') return problem(where, `image ${image} has no pinned tag`);
  const name = match.groups.name;
  if (isFlowhook(image) && tag !== VERSION && tag !== `${VERSION}-lite`)
    problem(where, `image ${image}: the tag is not package.json's version ${VERSION} (or ${VERSION}-lite)`);
  const temporal = TEMPORAL_SERVER_VERSION.replace(/^v/, '');
  if (name === 'temporalio/server' && tag !== temporal)
    problem(
      where,
      `image ${image}: the project tests Temporal server ${temporal} (bin/embedded/temporal-server-install.ts)`,
    );
  if (
    (name === 'temporalio/admin-tools' || name === 'temporalio/auto-setup') &&
    !tag.startsWith(`${temporal}-`) &&
    tag !== temporal
  )
    problem(where, `image ${image}: not the admin tools of Temporal server ${temporal}`);
}

/** The role a flowhook container runs: the first argument after the image's `node /app/bin/flowhook` entrypoint. */
function roleOf(service) {
  if (service.entrypoint) return 'cli'; // a one-shot script of ours that runs admin commands
  const first = service.command?.[0];
  return ROLES.has(first) ? first : 'cli';
}

/** `flowhook start` runs engine, worker and facade in its own process tree, with its environment. */
function readers(role) {
  return role === 'start' ? ['start', 'engine', 'worker', 'facade'] : [role];
}

function checkFlowhookService(where, service, project) {
  const role = roleOf(service);
  const environment = service.environment ?? {};
  for (const [name, value] of Object.entries(environment)) {
    if (IMAGE_VARIABLES.has(name)) continue;
    const row = CONFIGURATION_TABLE[name];
    if (!row) {
      problem(where, `${name} is not a flowhook setting (common/configuration/configuration-table.ts)`);
      continue;
    }
    if (row.retired) problem(where, `${name} is no longer read: ${row.retired}`);
    if (row.internal) problem(where, `${name} is set by flowhook for itself, not by operators`);
    if (!readers(role).some((reader) => row.processes.includes(reader)))
      problem(where, `${name} is read by ${row.processes.join(', ')}, not by flowhook ${role}`);
    if (value === null || value === undefined || String(value).trim() === '') continue;
    if (!row.launcher) {
      try {
        parseSetting(name, String(value));
      } catch (error) {
        problem(where, error.message);
      }
    }
    if (row.type.description === 'file path') checkMountedFile(where, service, name, String(value), project);
  }
  if (role === 'engine' && !environment.FLOWHOOK_DATABASE_URL) problem(where, 'the engine needs FLOWHOOK_DATABASE_URL');
  if (
    (role === 'facade' || role === 'worker') &&
    !environment.FLOWHOOK_ENGINE_TOKEN &&
    !environment.FLOWHOOK_ENGINE_TOKEN_FILE
  )
    problem(where, `flowhook ${role} needs FLOWHOOK_ENGINE_TOKEN or FLOWHOOK_ENGINE_TOKEN_FILE`);
  const healthcheck = service.healthcheck?.test ?? [];
  if (healthcheck.includes(IMAGE_HEALTHCHECK) && !['healthz', 'readyz'].includes(healthcheck.at(-1)))
    problem(where, 'the image healthcheck takes healthz or readyz');
  if (service.read_only !== true) problem(where, 'flowhook runs on a read-only root filesystem (read_only: true)');
}

/** A file a setting names: a secret's target, or a file on a volume or tmpfs mounted over its directory. */
function checkMountedFile(where, service, name, path, project) {
  if (path.startsWith('/run/secrets/')) {
    const secret = (service.secrets ?? []).find(
      (candidate) => (candidate.target ?? `/run/secrets/${candidate.source}`) === path,
    );
    if (!secret) problem(where, `${name}=${path}, but no secret is mounted there`);
    else if (!project.secrets?.[secret.source]) problem(where, `${name}: secret ${secret.source} is not declared`);
    return;
  }
  const mounted = (service.volumes ?? []).some((mount) => path.startsWith(`${mount.target.replace(/\/$/, '')}/`));
  if (!mounted) problem(where, `${name}=${path}, which is on no secret and no volume of this service`);
}

/** Engines, workers and the clients of the engine have to agree with each other. */
function checkAgreement(project) {
  const services = Object.entries(project.services ?? {}).filter(([, service]) => isFlowhook(service.image));
  const engines = services.filter(([, service]) => roleOf(service) === 'engine');
  const workers = services.filter(([, service]) => roleOf(service) === 'worker');
  const env = (service) => service.environment ?? {};
  const same = (names, group, label) => {
    for (const name of names) {
      const values = new Set(group.map(([, service]) => valueOrSecret(service, name)));
      if (values.size > 1) problem(project.name, `${label} disagree on ${name}: ${[...values].join(' / ')}`);
    }
  };
  same(
    [
      'TEMPORAL_ADDRESS',
      'TEMPORAL_NAMESPACE',
      'FLOWHOOK_TASK_QUEUE',
      'FLOWHOOK_PAYLOAD_KEY_FILE',
      'FLOWHOOK_PAYLOAD_KEY',
    ],
    [...engines, ...workers],
    'engines and workers',
  );
  same(['FLOWHOOK_SECRETS_KEY_FILE', 'FLOWHOOK_DATABASE_URL'], engines, 'engines');
  const facades = services.filter(([, service]) => roleOf(service) === 'facade');
  same(['FLOWHOOK_PUBLIC_URL', 'FLOWHOOK_INSTANCE'], [...engines, ...facades], 'engines and facades');
  for (const [name, engine] of engines) {
    const tls = Boolean(env(engine).FLOWHOOK_ENGINE_TLS_CERT);
    const host = env(engine).FLOWHOOK_ENGINE_HOST ?? '127.0.0.1';
    if (
      !['127.0.0.1', 'localhost', '::1'].includes(host) &&
      !tls &&
      String(env(engine).FLOWHOOK_ENGINE_INSECURE) !== 'true'
    )
      problem(
        `${project.name}/${name}`,
        `listens on ${host} without TLS: the engine refuses to (set FLOWHOOK_ENGINE_TLS_CERT/KEY)`,
      );
    const port = String(env(engine).FLOWHOOK_ENGINE_PORT ?? 7049);
    for (const [client, service] of services.filter(
      ([, candidate]) => roleOf(candidate) !== 'engine' && roleOf(candidate) !== 'start',
    )) {
      const where = `${project.name}/${client}`;
      const url = env(service).FLOWHOOK_ENGINE_URL;
      if (!url) {
        problem(where, `has no FLOWHOOK_ENGINE_URL (the engine is ${name})`);
        continue;
      }
      const { protocol, hostname, port: urlPort } = new URL(url);
      if (hostname !== name || (urlPort || (protocol === 'https:' ? '443' : '80')) !== port)
        problem(where, `FLOWHOOK_ENGINE_URL ${url} is not the engine service (${name}:${port})`);
      if ((protocol === 'https:') !== tls)
        problem(where, `FLOWHOOK_ENGINE_URL ${url}, but the engine ${tls ? 'serves TLS' : 'serves h2c'}`);
      if (tls && !env(service).FLOWHOOK_ENGINE_CA)
        problem(where, "FLOWHOOK_ENGINE_CA is needed to trust the engine's private CA");
    }
  }
}

/** A setting's value, or for a file that is a secret, the secret's source file: what has to be the same. */
function valueOrSecret(service, name) {
  const value = service.environment?.[name];
  const secret = (service.secrets ?? []).find(
    (candidate) => (candidate.target ?? `/run/secrets/${candidate.source}`) === value,
  );
  return secret ? `secret ${secret.source}` : String(value ?? '(unset)');
}

/** temporal-init's list against flow/search-attribute-keys.ts. */
function checkSearchAttributes() {
  const script = join(ROOT, 'deploy/compose/temporal/create-namespace.sh');
  const text = readFileSync(script, 'utf8');
  const list = /attributes=\(([^)]*)\)/.exec(text)?.[1] ?? '';
  const registered = Object.fromEntries(
    list
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => pair.split('=')),
  );
  const expected = JSON.stringify(Object.entries(SEARCH_ATTRIBUTES).sort());
  const actual = JSON.stringify(Object.entries(registered).sort());
  if (expected !== actual)
    problem(
      'deploy/compose/temporal/create-namespace.sh',
      `registers ${actual}; flowhook's search attributes are ${expected}`,
    );
  checked.add(`${Object.keys(registered).length} search attributes`);
}

/** The image paths the compose files use, against the image's build (deploy/image/, wherever in it they are said). */
function checkImagePaths() {
  const dir = join(ROOT, 'deploy/image');
  if (!existsSync(dir)) return problem('deploy/image', 'missing: the compose files use its image layout');
  const build = readdirSync(dir)
    .filter((name) => /\.(js|sh)$/.test(name))
    .map((name) => readFileSync(join(dir, name), 'utf8'))
    .join('\n');
  for (const [path, use] of [
    [IMAGE_NODE, "the image's Node, which the healthchecks and the init services run"],
    ['/app/bin/flowhook', 'what the image runs, and what compose/flowhook/service-account.mjs runs'],
    [IMAGE_HEALTHCHECK, 'the healthcheck the compose files run'],
  ]) {
    if (!build.includes(path)) problem('deploy/image', `no longer mentions ${path}: ${use}`);
  }
  if (!existsSync(join(ROOT, IMAGE_HEALTHCHECK.replace(/^\/app\//, ''))))
    problem('deploy/image', `no ${IMAGE_HEALTHCHECK.replace(/^\/app\//, '')}`);
  checked.add('image paths');
}
