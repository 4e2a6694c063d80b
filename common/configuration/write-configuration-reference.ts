// `npm run docs:config`: writes the configuration reference into its document, between the
// markers. `--check` only reports whether the document's copy is current (exit 1 when stale).
// The document and its heading level are named once, here: the handbook moves the reference by
// changing CONFIGURATION_REFERENCE.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderConfigurationReference, withReference } from './configuration-reference.ts';

export const CONFIGURATION_REFERENCE = Object.freeze({
  file: fileURLToPath(new URL('../../README.md', import.meta.url)),
  headingLevel: 3,
});

/** The document as it should read. */
export function currentReferenceDocument(): { path: string; written: string; expected: string } {
  const written = readFileSync(CONFIGURATION_REFERENCE.file, 'utf8');
  return { path: CONFIGURATION_REFERENCE.file, written, expected: withReference(written, renderConfigurationReference(CONFIGURATION_REFERENCE.headingLevel)) };
}

if (import.meta.main) {
  const { path, written, expected } = currentReferenceDocument();
  if (process.argv.includes('--check')) {
    if (written !== expected) {
      process.stderr.write(`${path}: the configuration reference is stale; run "npm run docs:config"\n`);
      process.exit(1);
    }
  } else if (written !== expected) {
    writeFileSync(path, expected);
    process.stdout.write(`wrote the configuration reference into ${path}\n`);
  }
}
