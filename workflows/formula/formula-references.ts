// Publish-time checks of what a formula refers to, so a typo fails at
// `flow apply --publish` with the step path instead of at run time with
// "Attempted to invoke a non-function (T1006)":
//  - every `$name(…)` call names a JSONata built-in, one of flowhook's own
//    functions, or a variable the formula binds itself (`$f := function…`);
//  - every path read from the root names something the evaluation context
//    has: `Trigger.Payload`, `Variables.x`, `Steps.<a step of this flow>`, …
//
// Only names evaluated against the root object are checked. Inside a path
// (after its first step), a filter, a lambda or a sort, names are relative to
// the current item of the payload and can be anything.
import jsonata from 'jsonata';
import { parseFieldPath } from './field-path.ts';
import { EVAL_DISABLED } from './guarded-functions.ts';

/** What the flow around a formula offers: the names of its steps (anywhere in the flow). */
export interface FormulaScope {
  stepNames: ReadonlySet<string>;
  /** Filled with every `Variables.<name>` read from the root, so the flow can warn about variables no step sets. */
  variablesRead?: Set<string>;
}

/** JSONata 2.2's function library (its static frame); a unit test keeps this in step with the installed jsonata. */
export const JSONATA_FUNCTIONS: readonly string[] = [
  'sum', 'count', 'max', 'min', 'average', 'string', 'substring', 'substringBefore', 'substringAfter', 'lowercase', 'uppercase',
  'length', 'trim', 'pad', 'match', 'contains', 'replace', 'split', 'join', 'formatNumber', 'formatBase', 'formatInteger',
  'parseInteger', 'number', 'floor', 'ceil', 'round', 'abs', 'sqrt', 'power', 'random', 'boolean', 'not', 'map', 'zip',
  'filter', 'single', 'reduce', 'sift', 'keys', 'lookup', 'append', 'exists', 'spread', 'merge', 'reverse', 'each', 'error',
  'assert', 'type', 'sort', 'shuffle', 'distinct', 'base64encode', 'base64decode', 'encodeUrlComponent', 'encodeUrl',
  'decodeUrlComponent', 'decodeUrl', 'eval', 'toMillis', 'fromMillis', 'clone',
  // Bound per evaluation rather than in the static frame.
  'now', 'millis',
];

/** Functions flowhook registers on every expression (xml-functions.ts). */
export const FLOWHOOK_FUNCTIONS: readonly string[] = ['xmlEscape'];

const KNOWN_FUNCTIONS = new Set([...JSONATA_FUNCTIONS, ...FLOWHOOK_FUNCTIONS]);

/** The evaluation context's shape (formula-context.ts): members that are fixed, or open (`null`), or the flow's steps. */
const ROOTS: Readonly<Record<string, readonly string[] | null | 'steps'>> = {
  Trigger: ['Payload', 'PayloadJson', 'Activity', 'Description'],
  Variables: null,
  Steps: 'steps',
  Execution: ['Id', 'StartedAt'],
  Company: ['Name'],
};

interface AstNode {
  type: string;
  value?: unknown;
  steps?: AstNode[];
  stages?: AstNode[];
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
}

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
  visit(ast, true);
  return problems;

  function visit(node: AstNode | undefined, atRoot: boolean): void {
    if (!node || typeof node !== 'object') return;
    switch (node.type) {
      case 'path':
        visitPath(node.steps ?? [], atRoot);
        return;
      case 'name':
        if (atRoot) checkRootPath([String(node.value)]);
        return;
      case 'function':
      case 'partial':
        if (node.procedure?.type === 'variable') checkFunction(String(node.procedure.value));
        else visit(node.procedure, atRoot);
        for (const argument of node.arguments ?? []) visit(argument, atRoot);
        return;
      case 'lambda':
        // Its body runs on whatever it is called with; names there are relative.
        return;
      case 'bind':
      case 'apply':
      case 'binary':
        if (!Array.isArray(node.lhs)) visit(node.lhs, atRoot);
        visit(node.rhs, atRoot);
        return;
      case 'block':
        for (const inner of node.expressions ?? []) visit(inner, atRoot);
        return;
      case 'condition':
        visit(node.condition, atRoot);
        visit(node.then, atRoot);
        visit(node.else, atRoot);
        return;
      case 'unary':
        if (node.value === '{' && Array.isArray(node.lhs)) for (const [key, value] of node.lhs) [key, value].forEach((part) => visit(part, atRoot));
        else if (node.value === '[') for (const inner of node.expressions ?? []) visit(inner, atRoot);
        else visit(node.expression, atRoot);
        return;
      default:
        return;
    }
  }

  function visitPath(steps: AstNode[], atRoot: boolean): void {
    const leading: string[] = [];
    for (const step of steps) {
      if (step.type !== 'name') break;
      leading.push(String(step.value));
    }
    if (atRoot && leading.length > 0) checkRootPath(leading);
    steps.forEach((step, index) => {
      // The first step of a path is evaluated where the path is; later steps (and every filter) on the current item.
      if (step.type !== 'name') visit(step, atRoot && index === 0);
      for (const stage of step.stages ?? []) visit((stage as AstNode & { expr?: AstNode }).expr, false);
    });
  }

  function checkFunction(name: string): void {
    if (bound.has(name)) return;
    if (name === 'eval') return void problems.push(EVAL_DISABLED);
    if (KNOWN_FUNCTIONS.has(name)) return;
    problems.push(`unknown function $${name}${suggestion(name, [...KNOWN_FUNCTIONS], (candidate) => `$${candidate}`)}`);
  }

  function checkRootPath(names: string[]): void {
    const problem = rootPathProblem(names, scope);
    if (problem) problems.push(problem);
  }
}

/** The same check for a SmartField path (`{{Trigger.Payload.id}}`). */
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

function rootPathProblem(names: readonly string[], scope: FormulaScope): string | undefined {
  const [root, member] = names;
  if (root === undefined) return undefined;
  const members = ROOTS[root];
  if (root === 'Variables' && member !== undefined) scope.variablesRead?.add(member);
  if (members === undefined) {
    const roots = Object.keys(ROOTS);
    return `unknown name "${root}": formulas read ${roots.join(', ')}${suggestion(root, roots, (candidate) => `"${candidate}"`)}`;
  }
  if (member === undefined || members === null) return undefined;
  if (members === 'steps') {
    if (scope.stepNames.has(member)) return undefined;
    const named = [...scope.stepNames];
    const known = named.length > 0 ? `the named steps are ${named.map((name) => `"${name}"`).join(', ')}` : 'no step has a name (give one with `name:`)';
    return `"Steps.${member}": no step of this flow is named "${member}"; ${known}${suggestion(member, named, (candidate) => `"Steps.${candidate}"`)}`;
  }
  if (members.includes(member)) return undefined;
  return `"${root}.${member}" does not exist: ${root} has ${members.join(', ')}${suggestion(member, members, (candidate) => `"${root}.${candidate}"`)}`;
}

/** ` (did you mean X?)` for the closest candidate within a small edit distance. */
function suggestion(wrong: string, candidates: readonly string[], spell: (candidate: string) => string): string {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(wrong.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  const tolerated = Math.max(1, Math.min(3, Math.floor(wrong.length / 3)));
  return best !== undefined && bestDistance <= tolerated ? ` (did you mean ${spell(best)}?)` : '';
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Variables the formula binds itself (`$x := …`, lambda parameters): calling them is fine. */
function boundVariables(ast: AstNode): Set<string> {
  const names = new Set<string>();
  const walk = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(walk);
    if (!value || typeof value !== 'object') return;
    const node = value as AstNode;
    if (node.type === 'bind' && !Array.isArray(node.lhs) && node.lhs?.type === 'variable') names.add(String(node.lhs.value));
    if (node.type === 'lambda') for (const argument of node.arguments ?? []) names.add(String(argument.value));
    for (const child of Object.values(node)) if (child && typeof child === 'object') walk(child);
  };
  walk(ast);
  return names;
}
