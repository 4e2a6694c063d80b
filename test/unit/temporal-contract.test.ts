// The Temporal contract between engine and workflow: every update, query and
// signal is defined once, in flow/flow-messages.ts (the flow
// workflow's) or flow-control-messages.ts (flow control's coordinators), and
// both sides use that definition — the workflow to register its handler, the
// engine, the worker's activities (and tests) to send. A bare name, a hand-written result type or a definition made elsewhere
// would compile and fail only when a real execution is asked. The check reads
// the whole project with the TypeScript checker, so it sees Temporal's calls by
// their signatures (a PostgreSQL `query('begin')` is not one), and a probe file
// with one mistake of each kind shows that it reports them. Workflow starts name
// their type by a constant of flow/, and in the engine also its signature
// (WorkflowSignatures in flow/flow-control-contract.ts) as the type argument, so
// Temporal's typings check their arguments.
import test from 'ava';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import type * as workflowBundle from '../../workflows/index.ts';
import * as flowMessages from '../../flow/flow-messages.ts';
import * as controlMessages from '../../flow/flow-control-messages.ts';
import { FLOW_WORKFLOW_TYPE, type FlowWorkflow } from '../../flow/index.ts';
import {
  COLLECTOR_WORKFLOW_TYPE,
  CONCURRENCY_WORKFLOW_TYPE,
  GATE_PAGE_WORKFLOW_TYPE,
  PAUSE_GATE_WORKFLOW_TYPE,
  THROTTLE_WORKFLOW_TYPE,
  UNCLAIMED_GRANT_WORKFLOW_TYPE,
  type WorkflowSignatures,
} from '../../flow/flow-control-contract.ts';
import { ALERT_WORKFLOW_TYPE } from '../../flow/alert-contract.ts';
import { RETENTION_WORKFLOW_TYPE } from '../../flow/retention-contract.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const MESSAGES_FILES = new Set([`${ROOT}flow/flow-messages.ts`, `${ROOT}flow/flow-control-messages.ts`]);
/** Where workflow types are named: the flow workflow's, and flow control's coordinators' (`…_WORKFLOW_TYPE`, or the table of them). */
const CONTRACT_FILES = new Set([
  `${ROOT}flow/flow-contract.ts`,
  `${ROOT}flow/flow-control-contract.ts`,
  `${ROOT}flow/alert-contract.ts`,
]);
/** Calls that address a message by its first argument. */
const MESSAGE_CALLS = new Set([
  'query',
  'signal',
  'executeUpdate',
  'startUpdate',
  'executeUpdateWithStart',
  'startUpdateWithStart',
  'setHandler',
]);
/** Calls (and the operation) that name a workflow type by their first argument. */
const WORKFLOW_CALLS = new Set([
  'start',
  'execute',
  'signalWithStart',
  'WithStartWorkflowOperation',
  'startChild',
  'executeChild',
]);
/** Where a workflow start must also name its signature as its type argument. */
const TYPED_STARTS = [`${ROOT}engine/`, `${ROOT}workflows/activities/`];

// Not on disk: added to the program, so the check is seen failing on each kind of mistake.
const PROBE_FILE = `${ROOT}test/unit/temporal-contract-probe.ts`;
const PROBE = `import type { Client } from '@temporalio/client';
import { defineQuery, setHandler } from '@temporalio/workflow';
import { executionLogQuery } from '../../flow/flow-messages.ts';
import { FLOW_WORKFLOW_TYPE } from '../../flow/index.ts';
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
// The same for a start's type argument, where the engine starts workflows.
const ENGINE_PROBE_FILE = `${ROOT}engine/temporal-contract-probe.ts`;
const ENGINE_PROBE = `import type { Client } from '@temporalio/client';
import { FLOW_WORKFLOW_TYPE, type FlowWorkflow } from '../flow/flow-contract.ts';
import { COLLECTOR_WORKFLOW_TYPE, GATE_WORKFLOW_TYPES, PAUSE_GATE_WORKFLOW_TYPE, type CollectorWorkflow, type GateWorkflow } from '../flow/flow-control-contract.ts';
import { flowPausedSignal } from '../flow/flow-control-messages.ts';
export async function probe(client: Client, kind: 'pause' | 'throttle') {
  await client.workflow.start(COLLECTOR_WORKFLOW_TYPE, { taskQueue: 'q', workflowId: 'x', args: [] });
  await client.workflow.start<(input: number) => Promise<void>>(COLLECTOR_WORKFLOW_TYPE, { taskQueue: 'q', workflowId: 'x', args: [1] });
  await client.workflow.signalWithStart<CollectorWorkflow>(PAUSE_GATE_WORKFLOW_TYPE, { taskQueue: 'q', workflowId: 'x', signal: flowPausedSignal });
  await client.workflow.start<GateWorkflow>(GATE_WORKFLOW_TYPES[kind], { taskQueue: 'q', workflowId: 'x', args: [{}] });
  await client.workflow.start<FlowWorkflow>(FLOW_WORKFLOW_TYPE, { taskQueue: 'q', workflowId: 'x' });
  await client.workflow.start<GateWorkflow>(kind, { taskQueue: 'q', workflowId: 'x', args: [{}] });
}
`;
const PROBES = new Map([
  [PROBE_FILE, PROBE],
  [ENGINE_PROBE_FILE, ENGINE_PROBE],
]);
const PROBE_FINDINGS = [
  'engine/temporal-contract-probe.ts:6 start: no type argument: name the signature flow/ declares for flowCollectorWorkflow (WorkflowSignatures)',
  'engine/temporal-contract-probe.ts:7 start: the type argument is not the signature flow/ declares for flowCollectorWorkflow (WorkflowSignatures)',
  'engine/temporal-contract-probe.ts:8 signalWithStart: the type argument is not the signature flow/ declares for flowPauseGateWorkflow (WorkflowSignatures)',
  'engine/temporal-contract-probe.ts:11 start: the workflow type is not a workflow type constant of flow/',
  'test/unit/temporal-contract-probe.ts:7 query: not a definition from the shared messages',
  'test/unit/temporal-contract-probe.ts:8 query: hand-written type arguments',
  'test/unit/temporal-contract-probe.ts:9 executeUpdate: not a definition from the shared messages',
  'test/unit/temporal-contract-probe.ts:10 setHandler: not a definition from the shared messages',
  'test/unit/temporal-contract-probe.ts:11 start: the workflow type is not a workflow type constant of flow/',
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
  const config = ts.getParsedCommandLineOfConfigFile(
    `${ROOT}tsconfig.json`,
    {},
    { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined },
  );
  if (!config) throw new Error('tsconfig.json does not parse');
  const host = ts.createCompilerHost(config.options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (name) => PROBES.has(name) || fileExists(name);
  host.readFile = (name) => PROBES.get(name) ?? readFile(name);
  host.getSourceFile = (name, language, ...rest) => {
    const probe = PROBES.get(name);
    return probe === undefined ? getSourceFile(name, language, ...rest) : ts.createSourceFile(name, probe, language);
  };
  const program = ts.createProgram({
    rootNames: [...config.fileNames, ...PROBES.keys()],
    options: config.options,
    host,
  });
  const checker = program.getTypeChecker();
  const result: Scan = { findings: [], handled: new Set(), checked: new Map() };

  // WorkflowSignatures: the signature of each workflow type.
  const contract = checker.getSymbolAtLocation(program.getSourceFile(`${ROOT}flow/flow-control-contract.ts`)!)!;
  const signaturesSymbol = checker.getExportsOfModule(contract).find((symbol) => symbol.name === 'WorkflowSignatures');
  if (!signaturesSymbol) throw new Error('flow/flow-control-contract.ts exports no WorkflowSignatures');
  const signatures = checker.getDeclaredTypeOfSymbol(signaturesSymbol);
  /** Why the start's type argument is not the declared signature of every workflow type its first argument may name, or undefined. */
  const signatureProblem = (node: ts.CallExpression | ts.NewExpression, first: ts.Expression): string | undefined => {
    const nameType = checker.getTypeAtLocation(first);
    const names = (nameType.isUnion() ? nameType.types : [nameType]).map((type) =>
      type.isStringLiteral() ? type.value : undefined,
    );
    if (names.includes(undefined))
      return 'the workflow type is no string literal type, so its signature cannot be told (declare the constant `as const`)';
    const declared = names.map((name) => signatures.getProperty(name!));
    const missing = names.filter((_name, index) => declared[index] === undefined);
    if (missing.length > 0) return `WorkflowSignatures declares no signature for ${missing.join(' or ')}`;
    const typeArgument = node.typeArguments?.[0];
    const label = `${names.join(' or ')} (WorkflowSignatures)`;
    if (!typeArgument) return `no type argument: name the signature flow/ declares for ${label}`;
    const given = checker.getTypeFromTypeNode(typeArgument);
    const same = (expected: ts.Type) =>
      expected === given || (expected.aliasSymbol !== undefined && expected.aliasSymbol === given.aliasSymbol);
    return declared.every((property) => same(checker.getTypeOfSymbol(property!)))
      ? undefined
      : `the type argument is not the signature flow/ declares for ${label}`;
  };

  const declaredIn = (expression: ts.Expression): { file: string; name: string } | undefined => {
    let symbol = checker.getSymbolAtLocation(ts.isPropertyAccessExpression(expression) ? expression.name : expression);
    if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
    const declaration = symbol?.declarations?.[0];
    return declaration && symbol ? { file: declaration.getSourceFile().fileName, name: symbol.name } : undefined;
  };

  for (const source of program.getSourceFiles()) {
    if (
      source.isDeclarationFile ||
      !source.fileName.startsWith(ROOT) ||
      source.fileName.includes('/node_modules/') ||
      source.fileName.includes('/proto/gen/')
    )
      continue;
    const where = (node: ts.Node) =>
      `${source.fileName.slice(ROOT.length)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
    const visit = (node: ts.Node): void => {
      ts.forEachChild(node, visit);
      if (!ts.isCallExpression(node) && !ts.isNewExpression(node)) return;
      const callee = node.expression;
      const method = ts.isPropertyAccessExpression(callee)
        ? callee.name.text
        : ts.isIdentifier(callee)
          ? callee.text
          : undefined;
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
        if (!type || !CONTRACT_FILES.has(type.file) || !/_WORKFLOW_TYPES?$/.test(type.name))
          finding('the workflow type is not a workflow type constant of flow/');
        else if (TYPED_STARTS.some((folder) => source.fileName.startsWith(folder))) {
          const problem = signatureProblem(node, first);
          if (problem) finding(problem);
        }
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

const definitions = Object.entries({ ...flowMessages, ...controlMessages }).filter(([, value]) =>
  ['update', 'query', 'signal'].includes(value.type),
);

test('every update, query and workflow start names its definition from flow/; the probe shows each mistake is seen', (t) => {
  const { findings, checked } = scan();
  t.deepEqual([...findings].sort(), [...PROBE_FINDINGS].sort());
  // The scan reached both sides of the contract.
  for (const file of [
    'workflows/flow-workflow.ts',
    'engine/domain/executions/execution-starter.ts',
    'engine/domain/webhook/get-answer.ts',
    'engine/edges/services/execution-service.ts',
    'engine/domain/callbacks/deliver-to-wait.ts',
    'workflows/flow-control/admission.ts',
    'workflows/activities/flow-control.ts',
    'engine/domain/flow-control/call-collector.ts',
    'engine/domain/flow-control/gate-entry.ts',
    'engine/domain/flow-control/flow-pauses.ts',
    'engine/domain/alerts/alert-workflows.ts',
  ]) {
    t.true((checked.get(`${ROOT}${file}`) ?? 0) > 0, `${file} was checked`);
  }
});

test('the workflow registers a handler for every definition, and no two definitions share a name', (t) => {
  t.deepEqual([...scan().handled].sort(), definitions.map(([exported]) => exported).sort());
  const names = definitions.map(([, definition]) => definition.name);
  t.is(new Set(names).size, names.length);
});

test('the workflow bundle exports the flow workflow under FLOW_WORKFLOW_TYPE, and each coordinator under its type, with the shared signatures', async (t) => {
  // Type level: a bundle without one of those exports, or with another signature, does not compile.
  const typed = (bundle: typeof workflowBundle): WorkflowSignatures => bundle;
  const flowWorkflow = (signatures: WorkflowSignatures): FlowWorkflow => signatures[FLOW_WORKFLOW_TYPE];
  const bundle = await import('../../workflows/index.ts');
  t.is(typeof flowWorkflow(typed(bundle)), 'function');
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
      ALERT_WORKFLOW_TYPE,
      RETENTION_WORKFLOW_TYPE,
    ].sort(),
  );
});
