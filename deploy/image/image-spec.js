// What the two tags are — this build's Dockerfile: their layers (trees staged by the stage-*.sh
// scripts) and their configuration. Prints the spec image-archive.js reads.
// Usage: node image-spec.js <work dir>, with IMAGE_NAME, IMAGE_VERSION, IMAGE_REVISION,
// IMAGE_SOURCE (may be empty), IMAGE_TREE (clean | uncommitted changes) and SOURCE_DATE_EPOCH set.
import { join } from 'node:path';

const [work] = process.argv.slice(2);
const {
  IMAGE_NAME: name,
  IMAGE_VERSION: version,
  IMAGE_REVISION: revision,
  IMAGE_SOURCE: source,
  IMAGE_TREE: tree,
  SOURCE_DATE_EPOCH: epoch,
} = process.env;
const NODE = '/app/node_modules/node/bin/node';
const SECOND = 1_000_000_000;

const labels = (ref, description) => ({
  'org.opencontainers.image.title': 'flowhook',
  'org.opencontainers.image.description': description,
  'org.opencontainers.image.version': version,
  'org.opencontainers.image.revision': revision,
  'org.opencontainers.image.created': new Date(Number(epoch) * 1000).toISOString().replace('.000Z', 'Z'),
  'org.opencontainers.image.ref.name': ref,
  'org.opencontainers.image.licenses': 'UNLICENSED',
  'org.opencontainers.image.documentation': 'docs/how-to/deploy.md',
  ...(source && { 'org.opencontainers.image.source': source }),
  // A build of uncommitted changes says so: its files are not exactly those of the revision.
  'dev.flowhook.source-tree': tree,
});

const config = (ref, description, more = {}) => ({
  // Numeric, so Kubernetes' runAsNonRoot can verify it without reading /etc/passwd.
  User: '10001:10001',
  Env: ['PATH=/usr/local/bin:/app/node_modules/node/bin', 'FLOWHOOK_DATA_DIR=/data', ...(more.env ?? [])],
  // The pinned Node runs bin/flowhook directly: no shell, no relay process.
  Entrypoint: [NODE, '/app/bin/flowhook'],
  Cmd: more.cmd ?? ['--help'],
  WorkingDir: '/data',
  Volumes: { '/data': {} },
  ExposedPorts: { '7048/tcp': {}, '7049/tcp': {} },
  StopSignal: 'SIGTERM',
  // Exec form: no shell in the image. The script finds the role PID 1 runs and asks its /healthz.
  Healthcheck: {
    Test: ['CMD', NODE, '/app/deploy/image/healthcheck.js'],
    Interval: 15 * SECOND,
    Timeout: 5 * SECOND,
    StartPeriod: 60 * SECOND,
    Retries: 3,
  },
  Labels: labels(ref, description),
});

const layers = [join(work, 'layers/base'), join(work, 'layers/deps'), join(work, 'layers/own')];
const history = [
  'base: glibc, libstdc++, libgcc_s, CA certificates, users; the pinned Node',
  'production node_modules (linux-x64)',
  "flowhook's sources, console, compiled-JS cache",
];

const spec = {
  epoch: Number(epoch),
  images: [
    {
      tags: [`localhost/${name}:${version}`, `localhost/${name}:latest`],
      layers,
      history,
      config: config(
        version,
        'Webhook trigger service for Temporal flows: flowhook engine|facade|worker|<cli command>',
      ),
    },
    {
      tags: [`localhost/${name}:${version}-lite`],
      layers: [...layers, join(work, 'lite')],
      history: [...history, 'flowhook start: embedded PostgreSQL, Temporal CLI'],
      // The facade on every interface of the container's own network namespace, so a published
      // port reaches it; PostgreSQL, Temporal and the engine stay on the container's loopback.
      config: config(
        `${version}-lite`,
        'flowhook start in one container: embedded PostgreSQL and the Temporal dev server included',
        {
          env: ['FLOWHOOK_FACADE_HOST=0.0.0.0'],
          cmd: ['start'],
        },
      ),
    },
  ],
};
process.stdout.write(`${JSON.stringify(spec, null, 2)}\n`);
