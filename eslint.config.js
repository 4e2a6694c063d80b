// Lint for the whole tree: typescript-eslint's recommended rules, the promise rules that need type
// information, and the arrows of the house (who may import whom), stated once below as zones.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import importX, { createNodeResolver } from 'eslint-plugin-import-x';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';
import { ENVIRONMENT_READERS } from './common/configuration/environment-readers.ts';

const ROOT = import.meta.dirname;
/** The folders the processes load; test/, examples/ and the tooling around them are outside. */
const PRODUCT = ['bin', 'common', 'console', 'engine', 'facade', 'flow', 'workflows'];

/**
 * Workflow code: what the worker's webpack bundle puts into Temporal's sandbox (workflows/index.ts,
 * the payload converter and the preloaded modules, and all they import). It is deterministic and
 * does no I/O, so it imports no Node built-in. test/unit/lint-rules.test.ts holds this list to the
 * bundle: every module the bundle contains must match it.
 */
const SANDBOX = [
  'workflows/index.ts',
  'workflows/flow-workflow.ts',
  'workflows/sandbox-stack-traces.ts',
  'flow/formula/**',
  'workflows/interpreter/**',
  'workflows/steps/**',
  'workflows/flow-control/**',
  // The operations workflows (alerts, retention); their activities beside them are not workflow code.
  'workflows/operations/*-workflow.ts',
  'flow/**',
  'common/control-characters.ts',
  'common/duration.ts',
  'common/flow-limits.ts',
  'common/json-depth.ts',
  'common/name-limits.ts',
  'common/own-member.ts',
  'common/token-bucket.ts',
];

/** The product's folders other than the given ones, and other than bin/ (one arrow of its own below). */
const OTHERS_THAN = (...layers) => PRODUCT.filter((layer) => layer !== 'bin' && !layers.includes(layer));

/** The engine's composition root, and what every layer of it may use. */
const ENGINE_WIRING = ['engine/main.ts', 'engine/server.ts', 'engine/config.ts'];
const ENGINE_KERNEL = ['engine/errors.ts', 'engine/error-codes.ts', 'engine/logger.ts'];

/** The arrows (import-x/no-restricted-paths zones): `target` may not import `from`, except `except`. */
const ARROWS = [
  {
    target: 'facade',
    from: OTHERS_THAN('facade', 'common'),
    message: 'facade/ imports proto/gen and common/ only: it reaches the engine over Connect.',
  },
  {
    target: 'engine',
    from: OTHERS_THAN('engine', 'common', 'flow', 'workflows'),
    message: 'engine/ imports proto/gen, common/, flow/ and the payload codec only.',
  },
  {
    target: 'engine',
    from: 'workflows',
    except: ['./codec'],
    message:
      'engine/ imports from workflows/ only codec/ (the payload codec): the flow model and the workflow contract are in flow/.',
  },
  {
    target: 'workflows',
    from: OTHERS_THAN('workflows', 'common', 'flow'),
    message: 'workflows/ imports proto/gen, common/ and flow/ only: activities reach the engine over Connect.',
  },
  {
    target: 'flow',
    from: OTHERS_THAN('flow', 'common'),
    message: 'flow/ is the flow model, a leaf: it imports proto/gen and common/ only.',
  },
  {
    target: 'common',
    from: OTHERS_THAN('common'),
    message: 'common/ is what facade, engine and workers share: it imports no other folder of the product.',
  },
  {
    target: 'console',
    from: OTHERS_THAN('console'),
    message: 'console/ imports proto/gen only: the browser talks to the engine over Connect.',
  },
  // Inside the engine the arrows point down: edges (the RPC services, the console's and the codec's
  // servers, interceptors) → domain (companies, flows, callers, executions, flow control…) →
  // infrastructure (storage, Temporal, caches, the secret store). main.ts, server.ts and config.ts
  // wire them together; errors.ts, error-codes.ts and logger.ts are below all three.
  {
    target: 'engine/domain',
    from: ['engine/edges', ...ENGINE_WIRING],
    message: 'engine/domain/ never imports an edge: the edges call the domain, not the other way round.',
  },
  {
    target: 'engine/infrastructure',
    from: ['engine/domain', 'engine/edges', ...ENGINE_WIRING],
    message: 'engine/infrastructure/ imports nothing of the domain or the edges.',
  },
  {
    target: 'engine/edges',
    from: ENGINE_WIRING,
    message: 'engine/edges/ are wired by main.ts and server.ts; they do not import them.',
  },
  {
    target: ENGINE_KERNEL,
    from: ['engine/domain', 'engine/edges', 'engine/infrastructure', ...ENGINE_WIRING],
    message: "the engine's errors and logger are below every layer.",
  },
  // Tests may import bin/ (they start its launchers); no product code may.
  { target: OTHERS_THAN(), from: 'bin', message: 'nothing imports bin/: it wires the processes and the CLI.' },
];

const NODE_BUILTINS_MESSAGE = "workflow code runs in Temporal's sandbox: no Node built-ins (do I/O in an activity).";

export default defineConfig([
  globalIgnores([
    'proto/gen/',
    'node_modules/',
    '.flowhook/',
    'test/.tmp/',
    'test-output/',
    'bench-results/',
    'flow.schema.json',
    'console/dist/',
    'console/.dist-*/',
  ]),
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.js', 'bin/flowhook'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    plugins: { 'import-x': importX },
    // Node's own resolution (the project imports by relative path with the .ts extension), so that
    // import-x/no-cycle follows every import to its file.
    settings: {
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js'] })],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/extensions': ['.ts', '.tsx', '.js'],
    },
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: ROOT },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // `_` names a value left unused on purpose; a rest sibling is how an object drops members.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      // Errors that stop a process or answer a command are shown by their message alone; each
      // rethrow folds into it the part of the cause an operator needs, and some keep the rest out
      // on purpose (a token file's read error names the error code only).
      'preserve-caught-error': 'off',
      'import-x/no-restricted-paths': ['error', { basePath: ROOT, zones: ARROWS }],
      // A cycle makes two modules one: neither can be read, tested or moved alone, and load order decides
      // which sees the other half-initialised. Type-only imports count too: they tie the same files together.
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  {
    // JavaScript outside the TypeScript program (the launcher, the compiled-JS hook, this file): no type information.
    files: ['**/*.js', 'bin/flowhook'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    files: SANDBOX,
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: builtinModules.map((name) => ({ name, message: NODE_BUILTINS_MESSAGE })),
          patterns: [{ regex: '^node:', message: NODE_BUILTINS_MESSAGE }],
        },
      ],
    },
  },
  {
    files: PRODUCT.map((layer) => `${layer}/**`),
    ignores: ENVIRONMENT_READERS,
    rules: {
      'no-restricted-properties': [
        'error',
        {
          object: 'process',
          property: 'env',
          message:
            'the environment is read once per process, through the configuration table (common/configuration/): take the value from the config object.',
        },
      ],
    },
  },
]);
