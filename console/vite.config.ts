// The console's build: React and Vite, into console/dist, which the engine's
// console listener serves (engine/edges/console/console-assets.ts). Run by
// console/build-console.ts (`npm install`, `npm run build:console`, or `flowhook
// start` when the pages are missing or older than their sources); `npx vite
// --config console/vite.config.ts` serves the sources for development.
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
/** Replaced by the engine with each page's nonce; the same text as CSP_NONCE_PLACEHOLDER in engine/edges/console/console-http.ts. */
const CSP_NONCE_PLACEHOLDER = 'console-csp-nonce-placeholder';

export default defineConfig({
  root,
  base: '/',
  plugins: [react()],
  // The engine puts a fresh nonce here in every page it serves (engine/edges/console/console-assets.ts): the
  // Content-Security-Policy then allows only styles that carry it — CodeMirror's, which it adds as <style> elements.
  html: { cspNonce: CSP_NONCE_PLACEHOLDER },
  // The generated protobuf-es code and the flow schema live outside console/, at the repository root.
  server: { fs: { allow: [fileURLToPath(new URL('..', import.meta.url))] } },
  build: {
    outDir: fileURLToPath(new URL('dist', import.meta.url)),
    emptyOutDir: true,
    // The Content-Security-Policy allows no inline script: no preload polyfill inlined into the page.
    modulePreload: { polyfill: false },
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 600,
  },
  logLevel: 'warn',
});
