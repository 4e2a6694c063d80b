// The image's HEALTHCHECK: one command for every role, with no shell or curl in the image.
// It reads the role from the container's main process (`flowhook <role>`) and asks
// that role's own probe: the facade on its port, the engine and the worker on their metrics ports
// (docs/how-to/deploy.md, Probes). `healthz` (the default) is liveness, which asks nothing
// else, so an outage of PostgreSQL or Temporal never marks every container unhealthy; pass
// `readyz` for readiness (compose's `depends_on: condition: service_healthy`, say).
// A one-shot CLI command has no probe: healthy while it runs.
// Exit 0 healthy, 1 unhealthy (the HEALTHCHECK contract). Plain JavaScript: it starts every few
// seconds and must not load Node's type stripper.
import { readdirSync, readFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';

const TIMEOUT_MS = 4000;
const WILDCARD = new Set(['', '0.0.0.0', '::', '[::]']);

/** Where each long-running role answers /healthz and /readyz, from the same variables it reads. */
const PROBES = {
  facade: (env) => ({
    host: env.FLOWHOOK_FACADE_HOST,
    port: env.FLOWHOOK_FACADE_PORT || '7048',
    tls: Boolean(env.FLOWHOOK_FACADE_TLS_CERT),
  }),
  start: (env) => ({
    host: env.FLOWHOOK_FACADE_HOST,
    port: env.FLOWHOOK_FACADE_PORT || '7048',
    tls: Boolean(env.FLOWHOOK_FACADE_TLS_CERT),
  }),
  engine: (env) => ({ host: env.FLOWHOOK_METRICS_HOST, port: env.FLOWHOOK_ENGINE_METRICS_PORT || '7051', tls: false }),
  worker: (env) => ({ host: env.FLOWHOOK_METRICS_HOST, port: env.FLOWHOOK_WORKER_METRICS_PORT || '7052', tls: false }),
};

/**
 * The role the container runs: the argument after bin/flowhook on PID 1's command line (the
 * launcher re-executes itself with heap flags, keeping its arguments), or on an init's there
 * (`--init`, compose's `init: true`: PID 1 is `init -- node /app/bin/flowhook <role>`); failing
 * that, the first process that runs bin/flowhook (a pod sharing its process namespace).
 */
function role() {
  const roleIn = (pid) => {
    try {
      const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      const launcher = args.findIndex((arg) => arg.endsWith('/bin/flowhook'));
      return launcher < 0 ? undefined : args[launcher + 1];
    } catch {
      return undefined;
    }
  };
  const pids = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name) && Number(name) !== process.pid)
    .map(Number)
    .sort((a, b) => a - b);
  for (const pid of pids) {
    const found = roleIn(pid);
    if (found) return found;
  }
  return undefined;
}

function probe(target, path) {
  const host = WILDCARD.has(target.host ?? '') ? '127.0.0.1' : target.host.replace(/^\[(.*)\]$/, '$1');
  const request = target.tls ? httpsRequest : httpRequest;
  return new Promise((resolve) => {
    // Liveness of our own process: a certificate for the public name need not match 127.0.0.1.
    const req = request(
      { host, port: Number(target.port), path, method: 'GET', timeout: TIMEOUT_MS, rejectUnauthorized: false },
      (res) => {
        res.resume();
        resolve(res.statusCode === 200 ? undefined : `${path} answered ${res.statusCode}`);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`no answer within ${TIMEOUT_MS} ms`)));
    req.on('error', (error) => resolve(`${host}:${target.port}${path}: ${error.message}`));
    req.end();
  });
}

const kind = process.argv[2] ?? 'healthz';
if (kind !== 'healthz' && kind !== 'readyz') {
  console.error(`usage: healthcheck.js [healthz|readyz] (not ${kind})`);
  process.exit(2);
}
const running = role();
const target = PROBES[running]?.(process.env);
if (!target) process.exit(0);
if (target.port === 'off') {
  console.error(
    `flowhook ${running}: its probe port is off (${running === 'worker' ? 'FLOWHOOK_WORKER_METRICS_PORT' : 'FLOWHOOK_ENGINE_METRICS_PORT'}); nothing to ask`,
  );
  process.exit(1);
}
const problem = await probe(target, `/${kind}`);
if (problem) console.error(`flowhook ${running} is not ${kind === 'healthz' ? 'alive' : 'ready'}: ${problem}`);
process.exit(problem ? 1 : 0);
