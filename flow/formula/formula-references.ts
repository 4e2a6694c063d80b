// Publish-time checks of what a formula refers to, so a typo fails at
// `flow apply --publish` with the step path instead of at run time with
// "Attempted to invoke a non-function (T1006)", or silently as nothing:
//  - every `$name(…)` call (also `x ~> $name`) names a JSONata built-in, one
//    of flowhook's own functions, or a variable the formula binds itself;
//  - every path read from the root names something the evaluation context
//    has: `Trigger.Payload`, `Variables.x`, `Steps.<a step of this flow>`,
//    `Callbacks.<a waitForCallback step of this flow without a key>.url`, …
//
// Which names are read from the root follows JSONata's evaluation: a path's
// first step, function arguments, blocks, object and array constructors and
// the body of a function written at the root (JSONata evaluates a function's
// body against the input where it was written, not against its argument) all
// see the root; `$` at the root and `$$` anywhere are the root. Later steps
// of a path, filters, groupings, sort terms and transforms see an item of
// the payload, where any name can be right, so only the calls there are checked.
import jsonata from 'jsonata';
import { didYouMean } from './did-you-mean.ts';
import { parseFieldPath } from './smart-field-path.ts';
import {
  CALLABLE_FUNCTIONS,
  CALLBACK,
  COLLECTED_TRIGGER,
  DIRECT_TRIGGER,
  FORMULA_ROOTS,
  isFormulaRoot,
  REFUSED_FUNCTIONS,
} from './formula-names.ts';

/** A waitForCallback step as formulas may name it: `Callbacks.<name>.url` exists when it has no key. */
export interface CallbackStepInScope {
  /** Where it is, e.g. `steps[2]`. */
  path: string;
  keyed: boolean;
}

/** What the flow around a formula offers: the names of its steps (anywhere in the flow). */
export interface FormulaScope {
  stepNames: ReadonlySet<string>;
  /** The waitForCallback steps by name; none when absent. */
  callbackSteps?: ReadonlyMap<string, CallbackStepInScope>;
  /** Filled with every `Variables.<name>` read from the root and the field that reads it first, so the flow can warn about variables no step sets, where. */
  variablesRead?: Map<string, string>;
  /** The field being checked (e.g. `steps[2].log.message`): where a read is noted. */
  readAt?: string;
  /** Filled with every provider-route-only `Trigger.<member>` read (Body, Headers, …), so a flow without `direct` can be warned. */
  directTriggerRead?: Set<string>;
  /** Filled with every `Trigger.Coalesced` / `Trigger.Batch` read, so a flow without the control that fills it can be refused. */
  collectedTriggerRead?: Set<string>;
  /**
   * The roots this formula may read, with the reason the others cannot be read; all when absent.
   * A flow-control key is computed when the call arrives, before any step ran: Trigger and Company only.
   */
  roots?: { names: ReadonlySet<string>; why: string };
}

/** The parts of a JSONata 2.x AST node these checks read. */
interface AstNode {
  type: string;
  value?: unknown;
  steps?: AstNode[];
  stages?: { expr?: AstNode }[];
  predicate?: { expr?: AstNode }[];
  group?: { lhs: AstNode[][] };
  terms?: { expression: AstNode }[];
  arguments?: AstNode[];
  procedure?: AstNode;
  body?: AstNode;
  lhs?: AstNode | AstNode[][];
  rhs?: AstNode;
  expressions?: AstNode[];
  expression?: AstNode;
  condition?: AstNode;
  then?: AstNode;
  else?: AstNode;
  pattern?: AstNode;
  update?: AstNode;
  delete?: AstNode;
}

/** Where a node is evaluated. `parameter`: inside a function written at the root, its first parameter (for a hint). */
interface Place {
  atRoot: boolean;
  parameter?: string;
}

const ROOT: Place = { atRoot: true };
const ITEM: Place = { atRoot: false };

/** Reasons a formula refers to something that cannot exist; empty when all is well (or it does not parse: that is reported elsewhere). */
export function formulaReferenceProblems(expression: string, scope: FormulaScope): string[] {
  let ast: AstNode;
  try {
    ast = jsonata(expression).ast() as AstNode;
  } catch {
    return [];
  }
  const bound = boundVariables(ast);
  const problems: string[] = [];
  visit(ast, ROOT);
  return problems;

  function visit(node: AstNode | undefined, place: Place): void {
    if (!node || typeof node !== 'object') return;
    // Filters and groupings run on each item of what they follow.
    for (const predicate of node.predicate ?? []) visit(predicate.expr, ITEM);
    for (const pair of node.group?.lhs ?? []) pair.forEach((part) => visit(part, ITEM));
    switch (node.type) {
      case 'path':
        return visitPath(node.steps ?? [], place);
      case 'name':
        if (place.atRoot) checkRootPath([String(node.value)], place);
        return;
      case 'function':
      case 'partial':
        if (node.procedure?.type === 'variable') checkCall(String(node.procedure.value));
        else visit(node.procedure, place);
        return node.arguments?.forEach((argument) => visit(argument, place));
      case 'lambda':
        return visit(
          node.body,
          place.atRoot ? { atRoot: true, parameter: node.arguments?.[0]?.value as string | undefined } : ITEM,
        );
      case 'apply':
        visit(node.lhs as AstNode, place);
        // `x ~> $f` calls $f with x.
        if (node.rhs?.type === 'variable') checkCall(String(node.rhs.value));
        else visit(node.rhs, place);
        return;
      case 'bind':
      case 'binary':
        visit(node.lhs as AstNode, place);
        return visit(node.rhs, place);
      case 'block':
        return node.expressions?.forEach((inner) => visit(inner, place));
      case 'condition':
        [node.condition, node.then, node.else].forEach((part) => visit(part, place));
        return;
      case 'unary':
        if (node.value === '{') (node.lhs as AstNode[][]).forEach((pair) => pair.forEach((part) => visit(part, place)));
        else if (node.value === '[') node.expressions?.forEach((inner) => visit(inner, place));
        else visit(node.expression, place);
        return;
      case 'sort':
        return node.terms?.forEach((term) => visit(term.expression, ITEM));
      case 'transform':
        [node.pattern, node.update, node.delete].forEach((part) => visit(part, ITEM));
        return;
      default:
        return;
    }
  }

  function visitPath(steps: AstNode[], place: Place): void {
    if (place.atRoot) checkRootPath(leadingNames(steps, 0), place);
    steps.forEach((step, index) => {
      // The first step is evaluated where the path is; later steps (and every filter) on the current item.
      if (step.type !== 'name') visit(step, index === 0 ? place : ITEM);
      for (const stage of step.stages ?? []) visit(stage.expr, ITEM);
      const readsRoot =
        step.type === 'variable' && (step.value === '$' || (step.value === '' && index === 0 && place.atRoot));
      if (readsRoot) checkRootPath(leadingNames(steps, index + 1), place);
    });
  }

  function checkCall(name: string): void {
    // `$()` / `$$()` call the context itself: nothing to name.
    if (name === '' || name === '$' || bound.has(name)) return;
    const refused = REFUSED_FUNCTIONS[name];
    if (refused !== undefined) problems.push(refused);
    else if (!CALLABLE_FUNCTIONS.has(name))
      problems.push(
        `unknown function $${name}${didYouMean(name, [...bound, ...CALLABLE_FUNCTIONS], (candidate) => `$${candidate}`)}`,
      );
  }

  function checkRootPath(names: string[], place: Place): void {
    let problem = rootPathProblem(names, scope);
    if (problem === undefined) return;
    if (place.parameter !== undefined && !isFormulaRoot(names[0]!)) {
      problem += `; a function's body reads from the root too, not from its argument: to read the argument write $${place.parameter}.${names.join('.')}`;
    }
    problems.push(problem);
  }
}

/** The same check for a SmartField path (`{{Trigger.Payload.id}}`), which always starts at the root. */
export function fieldReferenceProblems(path: string, scope: FormulaScope): string[] {
  const steps = parseFieldPath(path);
  if (!steps) return [];
  const names: string[] = [];
  for (const step of steps) {
    if (typeof step !== 'string') break;
    names.push(step);
  }
  const problem = rootPathProblem(names, scope);
  return problem ? [problem] : [];
}

/** Why the root path `names` (at least the first two count) cannot exist, or undefined when it can. */
function rootPathProblem(names: readonly string[], scope: FormulaScope): string | undefined {
  const [root, member] = names;
  if (root === undefined) return undefined;
  if (!isFormulaRoot(root)) {
    const roots = Object.keys(FORMULA_ROOTS);
    return `unknown name "${root}": formulas read ${roots.join(', ')}${didYouMean(root, roots, (candidate) => `"${candidate}"`)}`;
  }
  if (scope.roots && !scope.roots.names.has(root)) return `"${root}" cannot be read here: ${scope.roots.why}`;
  const members = FORMULA_ROOTS[root];
  if (member === undefined) return undefined;
  if (members === 'variables') {
    // Whether some set step sets it is the flow's question (a warning there).
    if (scope.variablesRead && !scope.variablesRead.has(member)) scope.variablesRead.set(member, scope.readAt ?? '');
    return undefined;
  }
  if (members === 'steps') return scope.stepNames.has(member) ? undefined : unknownStepProblem(member, scope.stepNames);
  if (members === 'callbacks') return callbackProblem(member, names[2], scope.callbackSteps ?? new Map());
  if (members.includes(member)) {
    if (root === 'Trigger' && Object.hasOwn(DIRECT_TRIGGER, member)) scope.directTriggerRead?.add(member);
    if (root === 'Trigger' && Object.hasOwn(COLLECTED_TRIGGER, member)) scope.collectedTriggerRead?.add(member);
    return undefined;
  }
  return `"${root}.${member}" does not exist: ${root} has ${members.join(', ')}${didYouMean(member, members, (candidate) => `"${root}.${candidate}"`)}`;
}

function unknownStepProblem(member: string, stepNames: ReadonlySet<string>): string {
  const named = [...stepNames];
  const known =
    named.length > 0
      ? `the named steps are ${named.map((name) => `"${name}"`).join(', ')}`
      : 'no step has a name (give one with `name:`)';
  return `"Steps.${member}": no step of this flow is named "${member}"; ${known}${didYouMean(member, named, (candidate) => `"Steps.${candidate}"`)}`;
}

/** `Callbacks.<step>.<field>`: the step must wait for a URL callback (no key), and its field exist. */
function callbackProblem(
  step: string,
  field: string | undefined,
  steps: ReadonlyMap<string, CallbackStepInScope>,
): string | undefined {
  const waits = steps.get(step);
  if (waits?.keyed)
    return `"Callbacks.${step}": the waitForCallback step "${step}" (${waits.path}) waits for a key, so it has no callback URL`;
  if (!waits) {
    const withUrl = [...steps].filter(([, candidate]) => !candidate.keyed).map(([name]) => name);
    const known =
      withUrl.length > 0
        ? `the waitForCallback steps with a URL are ${withUrl.map((name) => `"${name}"`).join(', ')}`
        : 'it has no waitForCallback step with a URL (one with a name and without a key)';
    return `"Callbacks.${step}": no waitForCallback step of this flow is named "${step}"; ${known}${didYouMean(step, withUrl, (candidate) => `"Callbacks.${candidate}"`)}`;
  }
  const fields = Object.keys(CALLBACK);
  if (field === undefined || fields.includes(field)) return undefined;
  return `"Callbacks.${step}.${field}" does not exist: Callbacks.${step} has ${fields.join(', ')}${didYouMean(field, fields, (candidate) => `"Callbacks.${step}.${candidate}"`)}`;
}

/** Names of the consecutive name steps from `start`: `Trigger.Payload.items[0].sku` → Trigger, Payload, items, sku. */
function leadingNames(steps: AstNode[], start: number): string[] {
  const names: string[] = [];
  for (const step of steps.slice(start)) {
    if (step.type !== 'name') break;
    names.push(String(step.value));
  }
  return names;
}

/** Variables the formula binds itself (`$x := …`, lambda parameters), wherever it binds them: calling them is fine. */
function boundVariables(ast: AstNode): Set<string> {
  const names = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (!value || typeof value !== 'object') return;
    const node = value as AstNode;
    if (node.type === 'bind' && !Array.isArray(node.lhs) && node.lhs?.type === 'variable')
      names.add(String(node.lhs.value));
    if (node.type === 'lambda') for (const argument of node.arguments ?? []) names.add(String(argument.value));
    for (const child of Object.values(node)) if (child && typeof child === 'object') walk(child);
  };
  walk(ast);
  return names;
}
