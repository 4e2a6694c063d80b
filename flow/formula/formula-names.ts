// The names a flowhook formula can use: the functions it may call and the
// shape of the object it is evaluated against. Publish-time checks
// (formula-references.ts) compare formulas with these lists, so each list is
// tied to the code that defines the real thing: the roots to FormulaContext
// (the compiler refuses a missing or extra member), flowhook's own functions
// to their registration table, the JSONata built-ins to the installed
// jsonata (a unit test reads its static frame).
import type { FormulaContext } from './formula-context.ts';
import { EVAL_DISABLED } from './guarded-functions.ts';
import { XML_FUNCTIONS } from './xml-functions.ts';

/** JSONata 2.2's function library, without the `$`. */
export const JSONATA_FUNCTIONS: readonly string[] = [
  'sum',
  'count',
  'max',
  'min',
  'average',
  'string',
  'substring',
  'substringBefore',
  'substringAfter',
  'lowercase',
  'uppercase',
  'length',
  'trim',
  'pad',
  'match',
  'contains',
  'replace',
  'split',
  'join',
  'formatNumber',
  'formatBase',
  'formatInteger',
  'parseInteger',
  'number',
  'floor',
  'ceil',
  'round',
  'abs',
  'sqrt',
  'power',
  'random',
  'boolean',
  'not',
  'map',
  'zip',
  'filter',
  'single',
  'reduce',
  'sift',
  'keys',
  'lookup',
  'append',
  'exists',
  'spread',
  'merge',
  'reverse',
  'each',
  'error',
  'assert',
  'type',
  'sort',
  'shuffle',
  'distinct',
  'base64encode',
  'base64decode',
  'encodeUrlComponent',
  'encodeUrl',
  'decodeUrlComponent',
  'decodeUrl',
  'eval',
  'toMillis',
  'fromMillis',
  'clone',
  // Bound per evaluation rather than in the static frame.
  'now',
  'millis',
];

/** Functions flowhook registers on every compiled expression besides the guarded built-ins (formula-evaluator.ts). */
export const FLOWHOOK_FUNCTIONS: readonly string[] = Object.keys(XML_FUNCTIONS);

/** Built-ins that exist but refuse every call (guarded-functions.ts), with the reason. */
export const REFUSED_FUNCTIONS: Readonly<Record<string, string>> = { eval: EVAL_DISABLED };

/** Everything a formula may call without binding it itself. */
export const CALLABLE_FUNCTIONS: ReadonlySet<string> = new Set(
  [...JSONATA_FUNCTIONS, ...FLOWHOOK_FUNCTIONS].filter((name) => !Object.hasOwn(REFUSED_FUNCTIONS, name)),
);

/** Every member of T, listed once: a missing or misspelt member does not compile. */
type MemberList<T> = { readonly [K in keyof T]-?: true };

/** Trigger members only the provider route fills (`trigger.webhook.direct`); publishing warns when a flow without it reads them. */
export const DIRECT_TRIGGER = {
  Body: true,
  BodyEncoding: true,
  Json: true,
  Form: true,
  Headers: true,
  Query: true,
  Method: true,
  Provider: true,
} as const;

/** Trigger members only a collecting flow control fills, each by the control that does (`trigger.webhook.<control>`). */
export const COLLECTED_TRIGGER = { Coalesced: 'debounce', Batch: 'batch' } as const;

const TRIGGER: MemberList<FormulaContext['Trigger']> = {
  Payload: true,
  PayloadJson: true,
  Activity: true,
  Description: true,
  ...DIRECT_TRIGGER,
  Coalesced: true,
  Batch: true,
};
const EXECUTION: MemberList<FormulaContext['Execution']> = { Id: true, StartedAt: true };
const COMPANY: MemberList<FormulaContext['Company']> = { Name: true };

/** What follows `Callbacks.<step>`. */
export const CALLBACK: MemberList<NonNullable<FormulaContext['Callbacks']>[string]> = { url: true };

/**
 * What may follow a root name: a fixed list of members, the flow's step
 * names (`steps`), whatever the set steps set (`variables`), or the names of
 * its waitForCallback steps that have a URL (`callbacks`).
 */
export type RootMembers = readonly string[] | 'steps' | 'variables' | 'callbacks';

/** The roots of FormulaContext, in the order messages list them. */
export const FORMULA_ROOTS: { readonly [K in keyof FormulaContext]-?: RootMembers } = {
  Trigger: Object.keys(TRIGGER),
  Variables: 'variables',
  Steps: 'steps',
  Execution: Object.keys(EXECUTION),
  Company: Object.keys(COMPANY),
  Callbacks: 'callbacks',
};

export function isFormulaRoot(name: string): name is keyof FormulaContext {
  return Object.hasOwn(FORMULA_ROOTS, name);
}
