// The Temporal contract between engine and workflow: every update, query and
// signal is defined once, in workflows/shared/flow-messages.ts (the flow
// workflow's) or flow-control-messages.ts (flow control's coordinators), and
// both sides use that definition — the workflow to register its handler, the
// engine, the worker's activities (and tests) to send. A bare name, a hand-written result type or a definition made elsewhere
// would compile and fail only when a real execution is asked. The check reads
// the whole project with the TypeScript checker, so it sees Temporal's calls by
// their signatures (a PostgreSQL `query('begin')` is not one), and a probe file
// with one mistake of each kind shows that it reports them.
import test from 'ava';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type * as workflowBundle from '../../workflows/index.ts';
import * as flowMessages from '../../workflows/shared/flow-messages.ts';
import * as controlMessages from '../../workflows/shared/flow-control-messages.ts';
import { FLOW_WORKFLOW_TYPE, type FlowWorkflow } from '../../workflows/shared/index.ts';
import {
  COLLECTOR_WORKFLOW_TYPE,
  CONCURRENCY_WORKFLOW_TYPE,
  GATE_PAGE_WORKFLOW_TYPE,
  PAUSE_GATE_WORKFLOW_TYPE,
  THROTTLE_WORKFLOW_TYPE,
  UNCLAIMED_GRANT_WORKFLOW_TYPE,
} from '../../workflows/shared/flow-control-contract.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MESSAGES_FILES = new Set([`${ROOT}workflows/shared/flow-messages.ts`, `${ROOT}workflows/shared/flow-control-messages.ts`]);
/** Where workflow types are named: the flow workflow's, and flow control's coordinators' (`…_WORKFLOW_TYPE`, or the table of them). */
const CONTRACT_FILES = new Set([`${ROOT}workflows/shared/flow-contract.ts`, `${ROOT}workflows/shared/flow-control-contract.ts`]);
/** Calls that address a message by its first argument. */
const MESSAGE_CALLS = new Set(['query', 'signal', 'executeUpdate', 'startUpdate', 'executeUpdateWithStart', 'startUpdateWithStart', 'setHandler']);
/** Calls (and the operation) that name a workflow type by their first argument. */
const WORKFLOW_CALLS = new Set(['start', 'execute', 'signalWithStart', 'WithStartWorkflowOperation', 'startChild', 'executeChild']);

// Not on disk: added to the program, so the check is seen failing on each kind of mistake.
const PROBE_FILE = `${ROOT}test/unit/temporal-contract-probe.ts`;
const PROBE = `import type { Client } from '@temporalio/client';
import { defineQuery, setHandler } from '@temporalio/workflow';
import { executionLogQuery } from '../../workflows/shared/flow-messages.ts';
import { FLOW_WORKFLOW_TYPE } from '../../workflows/shared/index.ts';
export async function probe(client: Client) {
  const handle = client.workflow.getHandle('x');
  await handle.query('executionLog');
  await handle.query<string[]>(executionLogQuery);
  await handle.executeUpdate('webhookResponse');
  setHandler(defineQuery<string>('elsewhere'), () => '');
  await client.workflow.start('flowWorkflow', { taskQueue: 'q', workflowId: 'x' });
  await handle.query(executionLogQuery);
  await handle.query('__temporal_workflow_metadata');
  await client.workflow.start(FLOW_WORKFLOW_TYPE, { taskQueue: 'q', workflowId: 'x' });
}
`;
const PROBE_FINDINGS = [
  'test/unit/temporal-contract-probe.ts:7 query: not a definition from the shared messages',
  'test/unit/temporal-contract-probe.ts:8 query: hand-written type arguments',
  'test/unit/temporal-contract-probe.ts:9 executeUpdate: not a definition from the shared messages',
  'test/unit/temporal-contract-probe.ts:10 setHandler: not a definition from the shared messages',
  'test/unit/temporal-contract-probe.ts:11 start: the workflow type is not a workflow type constant of workflows/shared',
];

interface Scan {
  findings: string[];
  /** The flow-messages exports the workflow registers a handler with. */
  handled: Set<string>;
  /** How many calls the scan checked, per file. */
  checked: Map<string, number>;
}

let scanned: Scan | undefined;

function scan(): Scan {
  if (scanned) return scanned;
  const config = ts.getParsedCommandLineOfConfigFile(`${ROOT}tsconfig.json`, {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  if (!config) throw new Error('tsconfig.json does not parse');
  const host = ts.createCompilerHost(config.options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (name) => name === PROBE_FILE || fileExists(name);
  host.readFile = (name) => (name === PROBE_FILE ? PROBE : readFile(name));
  host.getSourceFile = (name, language, ...rest) => (name === PROBE_FILE ? ts.createSourceFile(name, PROBE, language) : getSourceFile(name, language, ...rest));
  const program = ts.createProgram({ rootNames: [...config.fileNames, PROBE_FILE], options: config.options, host });
  const checker = program.getTypeChecker();
  const result: Scan = { findings: [], handled: new Set(), checked: new Map() };

  const declaredIn = (expression: ts.Expression): { file: string; name: string } | undefined => {
    let symbol = checker.getSymbolAtLocation(ts.isPropertyAccessExpression(expression) ? expression.name : expression);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const declaration = symbol?.declarations?.[0];
    return declaration && symbol ? { file: declaration.getSourceFile().fileName, name: symbol.name } : undefined;
  };

  for (const source of program.getSourceFiles()) {
    if (source.isDeclarationFile || !source.fileName.startsWith(ROOT) || source.fileName.includes('/node_modules/') || source.fileName.includes('/proto/gen/')) continue;
    const where = (node: ts.Node) => `${source.fileName.slice(ROOT.length)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const visit = (node: ts.Node): void => {
      ts.forEachChild(node, visit);
      if (!ts.isCallExpression(node) && !ts.isNewExpression(node)) return;
      const callee = node.expression;
      const method = ts.isPropertyAccessExpression(callee) ? callee.name.text : ts.isIdentifier(callee) ? callee.text : undefined;
      if (!method || (!MESSAGE_CALLS.has(method) && !WORKFLOW_CALLS.has(method))) return;
      // Only Temporal's own API: its signature is declared in an @temporalio package.
      const declaration = checker.getResolvedSignature(node)?.getDeclaration();
      if (!declaration?.getSourceFile().fileName.includes('/node_modules/@temporalio/')) return;
      const first = node.arguments?.[0];
      if (!first) return;
      result.checked.set(source.fileName, (result.checked.get(source.fileName) ?? 0) + 1);
      const finding = (what: string) => result.findings.push(`${where(node)} ${method}: ${what}`);
      if (WORKFLOW_CALLS.has(method)) {
        // `WORKFLOW_TYPES[kind]`: the table is what must be shared.
        const type = declaredIn(ts.isElementAccessExpression(first) ? first.expression : first);
        if (!type || !CONTRACT_FILES.has(type.file) || !/_WORKFLOW_TYPES?$/.test(type.name)) finding('the workflow type is not a workflow type constant of workflows/shared');
        return;
      }
      // Temporal's built-in queries (`__temporal_workflow_metadata`, `__stack_trace`) have no definition to share.
      if (ts.isStringLiteralLike(first) && first.text.startsWith('__')) return;
      const definition = declaredIn(first);
      if (!definition || !MESSAGES_FILES.has(definition.file)) finding('not a definition from the shared messages');
      else if (node.typeArguments) finding('hand-written type arguments');
      else if (method === 'setHandler') result.handled.add(definition.name);
    };
    visit(source);
  }
  scanned = result;
  return result;
}

const definitions = Object.entries({ ...flowMessages, ...controlMessages }).filter(([, value]) => ['update', 'query', 'signal'].includes(value.type));

test('every update, query and workflow start names its definition from workflows/shared; the probe shows each mistake is seen', (t) => {
  const { findings, checked } = scan();
  t.deepEqual(findings, PROBE_FINDINGS);
  // The scan reached both sides of the contract.
  for (const file of [
    'workflows/flow-workflow.ts',
    'engine/temporal/execution-starter.ts',
    'engine/webhook/get-answer.ts',
    'engine/executions/execution-service.ts',
    'engine/callbacks/deliver-to-wait.ts',
    'workflows/control/admission.ts',
    'workflows/activities/flow-control.ts',
    'engine/flow-control/call-collector.ts',
    'engine/flow-control/gate-entry.ts',
  ]) {
    t.true((checked.get(`${ROOT}${file}`) ?? 0) > 0, `${file} was checked`);
  }
});

test('the workflow registers a handler for every definition, and no two definitions share a name', (t) => {
  t.deepEqual([...scan().handled].sort(), definitions.map(([exported]) => exported).sort());
  const names = definitions.map(([, definition]) => definition.name);
  t.is(new Set(names).size, names.length);
});

test('the workflow bundle exports the flow workflow under FLOW_WORKFLOW_TYPE, with the shared signature, and each coordinator under its type', async (t) => {
  // Type level: a bundle without that export, or with another signature, does not compile.
  const typed = (bundle: typeof workflowBundle): FlowWorkflow => bundle[FLOW_WORKFLOW_TYPE];
  const bundle = await import('../../workflows/index.ts');
  t.is(typeof typed(bundle), 'function');
  t.deepEqual(
    Object.keys(bundle).sort(),
    [
      FLOW_WORKFLOW_TYPE,
      CONCURRENCY_WORKFLOW_TYPE,
      THROTTLE_WORKFLOW_TYPE,
      PAUSE_GATE_WORKFLOW_TYPE,
      COLLECTOR_WORKFLOW_TYPE,
      GATE_PAGE_WORKFLOW_TYPE,
      UNCLAIMED_GRANT_WORKFLOW_TYPE,
    ].sort(),
  );
});
