// Compiles and evaluates one JSONata expression (the inside of `${ ... }`)
// within the evaluation limits, turning every failure into a FormulaError.
// Compiled expressions are cached by source: a flow runs the same formulas
// on every execution, and compiling is the expensive part.

import jsonata from 'jsonata';
import type { FormulaContext } from './formula-context.ts';
import { FormulaError } from './formula-error.ts';
import { formulaSource } from './template-parser.ts';
import { toJsonText, toPlainJson } from './json-value.ts';
import { plainPathNames, spellingAt, type SyntaxNode } from './exact-provenance.ts';
import { registerXmlFunctions } from './xml-functions.ts';
import { BUDGET_BINDING, JSONATA_OPTIONS, installLimits, limitReason, newBudget } from './evaluation-limits.ts';
import { installGuardedFunctions } from './guarded-functions.ts';
import { compileRegexLiterals, UnsupportedRegexError } from './linear-regex.ts';

/** Most compiled expressions kept; the least recently used one goes first. */
export const COMPILED_CACHE_SIZE = 500;

const compiled = new Map<string, jsonata.Expression>();

/** The compiled expression; throws a FormulaError on a JSONata syntax error. */
export function compileFormula(expression: string): jsonata.Expression {
  const cached = compiled.get(expression);
  if (cached) {
    // Re-inserting moves the entry to the end of the Map's order, making it the newest.
    compiled.delete(expression);
    compiled.set(expression, cached);
    return cached;
  }
  let fresh: jsonata.Expression;
  try {
    fresh = jsonata(expression, JSONATA_OPTIONS);
    compileRegexLiterals(fresh.ast());
  } catch (error) {
    // Syntax errors only quote the formula's own tokens, never data.
    throw new FormulaError(
      formulaSource(expression),
      error instanceof UnsupportedRegexError ? error.message : describeJsonataError(error, false),
    );
  }
  // Installed before caching, so every expression the cache hands out has them.
  installLimits(fresh);
  installGuardedFunctions(fresh);
  registerXmlFunctions(fresh);
  compiled.set(expression, fresh);
  if (compiled.size > COMPILED_CACHE_SIZE) compiled.delete(compiled.keys().next().value!);
  return fresh;
}

/**
 * The formula's value as plain JSON; JSONata's "no result" (undefined)
 * becomes null so it can travel in workflow payloads.
 */
export async function evaluateFormula(expression: string, ctx: FormulaContext): Promise<unknown> {
  return toPlainJson(await evaluateRaw(expression, ctx));
}

/** JSONata's own result, before it is made plain JSON. */
async function evaluateRaw(expression: string, ctx: FormulaContext): Promise<unknown> {
  const compiledExpression = compileFormula(expression);
  const budget = newBudget();
  let result: unknown;
  try {
    result = await compiledExpression.evaluate(ctx, { [BUDGET_BINDING]: budget });
  } catch (error) {
    // A limit hit (or a disabled function) may reach us re-labelled by JSONata; the budget knows.
    const reason = budget.violation ?? limitReason(codeOf(error)) ?? describeJsonataError(error, true);
    throw new FormulaError(formulaSource(expression), reason);
  }
  return result;
}

/**
 * The formula's value as template text (json-value.ts toJsonText). A formula
 * that is only a member path to a payload number writes the number as the
 * caller spelled it (`${Trigger.Payload.amount}` → 12345678901234567890).
 */
export async function evaluateFormulaText(expression: string, ctx: FormulaContext): Promise<string> {
  const value = await evaluateRaw(expression, ctx);
  // Looked at before toPlainJson, which turns a number too large for a double (`1e400`, Infinity) into null.
  if (typeof value === 'number') {
    const names = plainPathNames(compileFormula(expression).ast() as SyntaxNode);
    const spelling = names && spellingAt(ctx, names, value);
    if (spelling !== undefined) return spelling;
    return toJsonText(toPlainJson(value));
  }
  return toJsonText(value);
}

/** Fields in which JSONata's runtime messages quote the values it ran on. */
const DATA_FIELDS = ['value', 'value2', 'exp'] as const;

/**
 * JSONata's message plus its error code. Runtime messages quote the offending
 * values ("Unable to cast value to a number: ..."); with `redactData` those are
 * replaced, so payload content never ends up in logs or API responses.
 */
function describeJsonataError(error: unknown, redactData: boolean): string {
  if (typeof error !== 'object' || error === null) return String(error);
  const fields = error as Record<string, unknown>;
  let message = typeof fields.message === 'string' ? fields.message : 'unknown error';
  if (redactData) {
    for (const field of DATA_FIELDS) {
      if (fields[field] === undefined) continue;
      const quoted = safeStringify(fields[field]);
      if (quoted) message = message.split(quoted).join('<value>');
    }
  }
  const code = codeOf(error);
  return code ? `${message} (${code})` : message;
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function safeStringify(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}
