// SmartFields `{{Path}}` and SmartFormulas `${ jsonata }` in flow templates.
// Everything here runs inside the Temporal workflow sandbox: no I/O, no Node
// built-ins, no clocks; the only dependency is jsonata (plain JavaScript).

export type { FormulaContext } from './formula-context.ts';
export { FormulaError } from './formula-error.ts';
export { parseTemplate } from './template-parser.ts';
export type { TemplatePart } from './template-parser.ts';
export { checkTemplate, isTemplate, resolveDeep, resolveText, resolveValue } from './resolve.ts';
export { evaluateFormula } from './formula-evaluator.ts';
export type { FormulaScope } from './formula-references.ts';
export { didYouMean } from './did-you-mean.ts';
export { COLLECTED_TRIGGER } from './formula-names.ts';
export { MAX_DEPTH, MAX_SEQUENCE_LENGTH, MAX_STEPS, MAX_STRING_LENGTH } from './evaluation-limits.ts';
export { parseExactJson } from './exact-json-parser.ts';
export { rememberSpelling } from './exact-source.ts';
