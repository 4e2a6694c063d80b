// Publish-time checks of single fields, shared by the trigger's validation
// (flow-validation.ts) and every step kind's model (flow/steps/). Problems name
// the field in the flow file's own spelling.
import { checkTemplate, type FormulaScope } from './formula/index.ts';

export function checkStatusCode(code: unknown, field: string, errors: string[]): void {
  if (typeof code !== 'number' || !Number.isInteger(code) || code < 200 || code > 599) {
    errors.push(
      `${field}: must be an integer status code in 200..599 (1xx codes are not allowed), got ${JSON.stringify(code)}`,
    );
  }
}

/** A template field: its formulas must parse and name things that exist. */
export function checkText(
  text: string | undefined,
  field: string,
  errors: string[],
  scope: FormulaScope,
  required = false,
): void {
  if (text === undefined || text === '') {
    if (required) errors.push(`${field}: required`);
    return;
  }
  for (const problem of checkTemplate(text, { ...scope, readAt: field })) errors.push(`${field}: ${problem}`);
}

/** Every text inside a JSON value (set variables, record fields), named by its path. */
export function checkDeep(value: unknown, field: string, errors: string[], scope: FormulaScope): void {
  if (typeof value === 'string') checkText(value, field, errors, scope);
  else if (Array.isArray(value)) value.forEach((item, i) => checkDeep(item, `${field}[${i}]`, errors, scope));
  else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) checkDeep(item, `${field}.${key}`, errors, scope);
  }
}
