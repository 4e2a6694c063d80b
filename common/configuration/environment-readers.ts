// The only product files that touch process.env (lint and the configuration scan test read this
// list): each process's configuration, which hands its environment to the table; the launcher,
// which runs before TypeScript loads; and what builds a child process's environment or finds its
// program on PATH.
export const ENVIRONMENT_READERS: readonly string[] = [
  'engine/config.ts',
  'facade/config.ts',
  'workflows/config.ts',
  'bin/cli/cli-config.ts',
  'bin/start/start-config.ts',
  'bin/flowhook',
  'bin/compiled-js.js',
  'bin/embedded/child-environment.ts',
  'bin/embedded/temporal-cli.ts',
  'bin/embedded/temporal-cli-install.ts',
  'bin/embedded/temporal-server-install.ts',
  'workflows/workflow-bundle.ts',
];
