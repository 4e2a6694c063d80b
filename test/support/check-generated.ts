// Fails when proto/gen/ differs from what `buf generate` makes of proto/ now,
// so a stale generated tree never lands.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'flowhook-gen-'));
try {
  cpSync(join(root, 'proto'), join(scratch, 'proto'), {
    recursive: true,
    filter: (source) => !source.includes(`${join('proto', 'gen')}`),
  });
  cpSync(join(root, 'buf.yaml'), join(scratch, 'buf.yaml'));
  cpSync(join(root, 'buf.gen.yaml'), join(scratch, 'buf.gen.yaml'));
  execFileSync(join(root, 'node_modules', '.bin', 'buf'), ['generate'], {
    cwd: scratch,
    stdio: 'inherit',
    env: { ...process.env, PATH: `${join(root, 'node_modules', '.bin')}:${process.env.PATH}` },
  });
  const committed = listFiles(join(root, 'proto', 'gen'));
  const fresh = listFiles(join(scratch, 'proto', 'gen'));
  const stale = [...new Set([...committed.keys(), ...fresh.keys()])].filter(
    (file) => committed.get(file) !== fresh.get(file),
  );
  if (stale.length > 0) {
    console.error(`proto/gen is stale; run "npx buf generate". Differs: ${stale.join(', ')}`);
    process.exit(1);
  }
} finally {
  rmSync(scratch, { recursive: true, force: true });
}

function listFiles(dir: string, base = dir, out = new Map<string, string>()): Map<string, string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) listFiles(path, base, out);
    else out.set(relative(base, path), readFileSync(path, 'utf8'));
  }
  return out;
}
