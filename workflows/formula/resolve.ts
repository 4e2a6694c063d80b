// Resolving templates against a FormulaContext, and checking them at publish
// time. A template that is exactly one `${ ... }` keeps the formula's raw
// value (an object stays an object); anything else becomes text.

import type { FormulaContext } from './formula-context.ts';
import { FormulaError } from './formula-error.ts';
import { parseTemplate, scanTemplate } from './template-parser.ts';
import type { TemplatePart } from './template-parser.ts';
import { compileFormula, evaluateFormula } from './formula-evaluator.ts';
import { fieldText, parseFieldPath } from './field-path.ts';
import { toJsonText } from './json-value.ts';

/** The template's value: a lone formula's raw value, otherwise the interpolated text. */
export async function resolveValue(template: string, ctx: FormulaContext): Promise<unknown> {
  const parts = parseTemplate(template);
  const only = parts.length === 1 ? parts[0]! : undefined;
  if (only?.kind === 'formula') return evaluateFormula(only.expression, ctx);
  return interpolate(parts, ctx);
}

/** The template as text, whatever its placeholders produce. */
export async function resolveText(template: string, ctx: FormulaContext): Promise<string> {
  return interpolate(parseTemplate(template), ctx);
}

/**
 * Resolves every string inside a JSON value (objects and arrays, any depth)
 * as a template; keys and non-string values are kept as they are. Strings are
 * resolved one after another, in document order, so evaluation is repeatable.
 */
export async function resolveDeep(value: unknown, ctx: FormulaContext): Promise<unknown> {
  if (typeof value === 'string') return resolveValue(value, ctx);
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const item of value) items.push(await resolveDeep(item, ctx));
    return items;
  }
  if (value !== null && typeof value === 'object') {
    const resolved: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) resolved[key] = await resolveDeep(item, ctx);
    return resolved;
  }
  return value;
}

/** Whether the text holds any placeholder (an unterminated one counts: resolving it reports the error). */
export function isTemplate(text: string): boolean {
  const { parts, problems } = scanTemplate(text);
  return problems.length > 0 || parts.some((part) => part.kind !== 'text');
}

/**
 * Problems a template would cause at run time, found without evaluating
 * anything: unterminated or empty placeholders, bad field paths and JSONata
 * syntax errors. Empty when the template is fine.
 */
export function checkTemplate(text: string): string[] {
  const { parts, problems } = scanTemplate(text);
  const messages = problems.map((problem) => new FormulaError(problem.source, problem.reason).message);
  for (const part of parts) {
    if (part.kind !== 'formula' || part.expression.trim() === '') continue;
    try {
      compileFormula(part.expression);
    } catch (error) {
      if (!(error instanceof FormulaError)) throw error;
      messages.push(error.message);
    }
  }
  return messages;
}

async function interpolate(parts: readonly TemplatePart[], ctx: FormulaContext): Promise<string> {
  let text = '';
  for (const part of parts) {
    if (part.kind === 'text') text += part.text;
    else if (part.kind === 'field') text += fieldText(parseFieldPath(part.path)!, ctx);
    else text += toJsonText(await evaluateFormula(part.expression, ctx));
  }
  return text;
}
