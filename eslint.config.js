// Lint for the whole tree: typescript-eslint's recommended rules, the promise rules that need type
// information, and the arrows of the house (who may import whom), stated once below as zones.
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import importX from 'eslint-plugin-import-x';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';
import { ENVIRONMENT_READERS } from './common/configuration/environment-readers.ts';

const ROOT = import.meta.dirname;
/** The folders the processes load; test/, examples/ and the tooling around them are outside. */
const PRODUCT = ['bin', 'common', 'console', 'engine', 'facade', 'workflows'];

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
  'workflows/formula/**',
  'workflows/interpreter/**',
  'workflows/steps/**',
  'workflows/control/**',
  'workflows/shared/**',
  'common/control-characters.ts',
  'common/duration.ts',
  'common/flow-limits.ts',
  'common/json-depth.ts',
  'common/name-limits.ts',
  'common/own-member.ts',
];
/** Modules of workflows/shared/ the sandbox never loads: they run in the engine and the worker's Node side. */
const SHARED_NODE_SIDE = ['workflows/shared/temporal-tls.ts'];

/** The product's folders other than the given ones, and other than bin/ (one arrow of its own below). */
const OTHERS_THAN = (...layers) => PRODUCT.filter((layer) => layer !== 'bin' && !layers.includes(layer));

/** The arrows (import-x/no-restricted-paths zones): `target` may not import `from`, except `except`. */
const ARROWS = [
  { target: 'facade', from: OTHERS_THAN('facade', 'common'), message: 'facade/ imports proto/gen and common/ only: it reaches the engine over Connect.' },
  { target: 'engine', from: OTHERS_THAN('engine', 'common', 'workflows'), message: 'engine/ imports proto/gen, common/ and the workflow contract only.' },
  {
    target: 'engine',
    from: 'workflows',
    except: ['./shared', './codec'],
    message: 'engine/ imports from workflows/ only shared/ (the workflow contract) and codec/ (the payload codec).',
  },
  { target: 'workflows', from: OTHERS_THAN('workflows', 'common'), message: 'workflows/ imports proto/gen and common/ only: activities reach the engine over Connect.' },
  { target: 'common', from: OTHERS_THAN('common'), message: 'common/ is what facade, engine and workers share: it imports no other folder of the product.' },
  { target: 'console', from: OTHERS_THAN('console'), message: 'console/ imports proto/gen only: the browser talks to the engine over Connect.' },
  // Tests may import bin/ (they start its launchers); no product code may.
  { target: OTHERS_THAN(), from: 'bin', message: 'nothing imports bin/: it wires the processes and the CLI.' },
];

const NODE_BUILTINS_MESSAGE = "workflow code runs in Temporal's sandbox: no Node built-ins (do I/O in an activity).";

export default defineConfig([
  globalIgnores(['proto/gen/', 'node_modules/', '.flowhook/', 'test/.tmp/', 'test-output/', 'bench-results/', 'flow.schema.json', 'console/dist/', 'console/.dist-*/']),
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.js', 'bin/flowhook'],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    plugins: { 'import-x': importX },
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: ROOT },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // `_` names a value left unused on purpose; a rest sibling is how an object drops members.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true }],
      // Errors that stop a process or answer a command are shown by their message alone; each
      // rethrow folds into it the part of the cause an operator needs, and some keep the rest out
      // on purpose (a token file's read error names the error code only).
      'preserve-caught-error': 'off',
      'import-x/no-restricted-paths': ['error', { basePath: ROOT, zones: ARROWS }],
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
    ignores: SHARED_NODE_SIDE,
    rules: {
      'no-restricted-imports': [
        'error',
        { paths: builtinModules.map((name) => ({ name, message: NODE_BUILTINS_MESSAGE })), patterns: [{ regex: '^node:', message: NODE_BUILTINS_MESSAGE }] },
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
          message: 'the environment is read once per process, through the configuration table (common/configuration/): take the value from the config object.',
        },
      ],
    },
  },
]);
