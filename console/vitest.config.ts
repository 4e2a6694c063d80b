// The console's component tests (test/component/, `npm run test:components`):
// its pages and hooks rendered in happy-dom, a DOM without a browser, against
// an engine in memory (Connect's createRouterTransport). No PostgreSQL, no
// Temporal, no browser: what only a browser shows stays in the browser tests
// (test/e2e/console-*.test.ts).
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The repository: the tests import the console's sources and the generated code beside it.
  root: fileURLToPath(new URL('..', import.meta.url)),
  plugins: [react()],
  test: {
    include: ['test/component/**/*.test.tsx'],
    environment: 'happy-dom',
    setupFiles: ['test/component/support/setup.ts'],
  },
  logLevel: 'warn',
});
