// Resolving templates against a FormulaContext, and checking them at publish
// time. A template that is exactly one `${ ... }` keeps the formula's raw
// value (an object stays an object); anything else becomes text.

import type { FormulaContext } from './formula-context.ts';
import { FormulaError } from './formula-error.ts';
import { formulaSource, parseTemplate, scanTemplate } from './template-parser.ts';
import { fieldReferenceProblems, formulaReferenceProblems, type FormulaScope } from './formula-references.ts';
import type { TemplatePart } from './template-parser.ts';
import { compileFormula, evaluateFormula, evaluateFormulaText } from './formula-evaluator.ts';
import { fieldText, parseFieldPath } from './smart-field-path.ts';
import { setOwnMember } from '../../common/own-member.ts';

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
    for (const [key, item] of Object.entries(value)) setOwnMember(resolved, key, await resolveDeep(item, ctx));
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
 * syntax errors — and, given the flow's scope, unknown functions and paths
 * that cannot exist (formula-references.ts). Empty when the template is fine.
 */
export function checkTemplate(text: string, scope?: FormulaScope): string[] {
  const { parts, problems } = scanTemplate(text);
  const messages = problems.map((problem) => new FormulaError(problem.source, problem.reason).message);
  for (const part of parts) {
    if (part.kind === 'field') {
      if (scope)
        for (const reason of fieldReferenceProblems(part.path, scope))
          messages.push(new FormulaError(`{{${part.path}}}`, reason).message);
      continue;
    }
    if (part.kind !== 'formula' || part.expression.trim() === '') continue;
    try {
      compileFormula(part.expression);
    } catch (error) {
      if (!(error instanceof FormulaError)) throw error;
      messages.push(error.message);
      continue;
    }
    if (scope)
      for (const reason of formulaReferenceProblems(part.expression, scope))
        messages.push(new FormulaError(formulaSource(part.expression), reason).message);
  }
  return messages;
}

async function interpolate(parts: readonly TemplatePart[], ctx: FormulaContext): Promise<string> {
  let text = '';
  for (const part of parts) {
    if (part.kind === 'text') text += part.text;
    else if (part.kind === 'field') text += fieldText(parseFieldPath(part.path)!, ctx);
    else text += await evaluateFormulaText(part.expression, ctx);
  }
  return text;
}
