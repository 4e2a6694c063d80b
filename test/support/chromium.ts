// The browser the UI tests drive: Debian's `chromium`, found on PATH
// (playwright-core brings no browser of its own; these machines download none).
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

export function findChromium(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    try {
      accessSync(join(dir, 'chromium'), constants.X_OK);
      return join(dir, 'chromium');
    } catch {
      // not in this directory
    }
  }
  return undefined;
}
