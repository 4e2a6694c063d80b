// The console's pages: the files `vite build` wrote into console/dist. Files
// under /assets/ have content hashes in their names and are cached for good;
// every other path is the single page's index.html (the page routes in the
// browser), never cached, so a new build is picked up at the next load. While
// the bundle is not built, a page says how to build it.
import { createReadStream, existsSync, readFileSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import { consoleCsp, CSP_NONCE_PLACEHOLDER, newNonce, plainPage, sendHtml, sendText } from './console-http.ts';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
};
/** One file name under /assets/ (or a top-level file such as favicon.svg): no separators, no dot segments. */
const FILE = /^\/(assets\/)?([A-Za-z0-9_-][A-Za-z0-9._-]*)$/;

export function serveAssets(
  assetsDir: string,
  headers: Record<string, string>,
): (req: IncomingMessage, res: ServerResponse) => Promise<void> {
  const indexPath = join(assetsDir, 'index.html');
  return async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://console').pathname;
    const file = FILE.exec(path);
    if (file && extname(file[2]!) !== '.html') {
      const served = await sendFile(req, res, join(assetsDir, file[1] ?? '', file[2]!), headers, file[1] !== undefined);
      if (served || file[1] !== undefined) {
        if (!served) sendText(res, 404, 'not found', headers);
        return;
      }
    }
    if (!existsSync(indexPath)) return sendHtml(res, 503, NOT_BUILT, headers);
    // Read on every load (small): a rebuild while the engine runs is served at once. Each page its own style nonce.
    const nonce = newNonce();
    sendHtml(res, 200, readFileSync(indexPath, 'utf8').replaceAll(CSP_NONCE_PLACEHOLDER, nonce), {
      ...headers,
      'content-security-policy': consoleCsp(nonce),
    });
  };
}

async function sendFile(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  headers: Record<string, string>,
  immutable: boolean,
): Promise<boolean> {
  const info = await stat(path).catch(() => undefined);
  if (!info?.isFile()) return false;
  res.writeHead(200, {
    ...headers,
    'content-type': TYPES[extname(path)] ?? 'application/octet-stream',
    'content-length': String(info.size),
    'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
  });
  if (req.method === 'HEAD') res.end();
  else createReadStream(path).pipe(res);
  return true;
}

const NOT_BUILT = plainPage(
  'The console is not built here',
  "This checkout has no built console pages (console/dist). `npm install` builds them; so does `npm run build:console`. The console's RPCs work meanwhile.",
  { href: '/', text: 'Reload' },
);
