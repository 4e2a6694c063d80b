// Writes a docker-archive (what `podman load` and `docker load` read) for image tags made of the
// given layer trees: each tree becomes one layer tar, each tag a configuration. Written here rather
// than committed with buildah because buildah's Docker-format commits carry the working
// container's random ID and hostname, so every build had another image ID; and the OCI format,
// which is reproducible there, has no HEALTHCHECK. Here the image ID (the configuration's digest)
// is a function of the staged files and SOURCE_DATE_EPOCH only:
// - GNU tar with names sorted, every mtime at SOURCE_DATE_EPOCH, numeric owners as staged, and no
//   PAX headers (their default names carry the PID);
// - the configuration's JSON written with keys in a fixed order and no build-host detail.
// Usage: node image-archive.js <spec.json> <archive dir>; then `tar -cf image.tar -C <archive dir> .`.
// spec: { epoch, images: [{ tags: [...], layers: [dir...], config: {User, Env, ...}, history: [created_by...] }] }
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [specPath, out] = process.argv.slice(2);
const spec = JSON.parse(readFileSync(specPath, 'utf8'));
const created = new Date(spec.epoch * 1000).toISOString().replace('.000Z', 'Z');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

/** One layer per tree, written once however many tags share it: the tree's path → its diff ID. */
const layers = new Map();
async function layer(tree) {
  if (!layers.has(tree)) {
    const temporary = join(out, 'layer.tar.tmp');
    const top = readdirSync(tree).sort();
    execFileSync('tar', [
      '--create',
      '--file',
      temporary,
      '--directory',
      tree,
      '--format=gnu',
      '--sort=name',
      `--mtime=@${spec.epoch}`,
      '--numeric-owner',
      ...top,
    ]);
    const digest = await sha256File(temporary);
    mkdirSync(join(out, digest), { recursive: true });
    renameSync(temporary, join(out, digest, 'layer.tar'));
    layers.set(tree, digest);
  }
  return layers.get(tree);
}

function sha256File(path) {
  return new Promise((resolve, reject) => {
    const hash = createHash('sha256');
    createReadStream(path)
      .on('data', (chunk) => hash.update(chunk))
      .on('end', () => resolve(hash.digest('hex')))
      .on('error', reject);
  });
}

const manifest = [];
for (const image of spec.images) {
  const diffIds = [];
  for (const tree of image.layers) diffIds.push(await layer(tree));
  const config = {
    architecture: 'amd64',
    os: 'linux',
    created,
    config: image.config,
    rootfs: { type: 'layers', diff_ids: diffIds.map((id) => `sha256:${id}`) },
    history: image.history.map((createdBy) => ({ created, created_by: createdBy })),
  };
  const text = JSON.stringify(config);
  const configDigest = createHash('sha256').update(text).digest('hex');
  writeFileSync(join(out, `${configDigest}.json`), text);
  manifest.push({
    Config: `${configDigest}.json`,
    RepoTags: image.tags,
    Layers: diffIds.map((id) => `${id}/layer.tar`),
  });
  process.stdout.write(`${image.tags[0]} sha256:${configDigest}\n`);
}
writeFileSync(join(out, 'manifest.json'), JSON.stringify(manifest));
