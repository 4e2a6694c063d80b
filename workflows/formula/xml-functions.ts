// Functions formulas may call to build XML (e.g. a SOAP envelope in an
// httpRequest body template). Pure and deterministic: they run in the
// workflow sandbox.
import type jsonata from 'jsonata';

const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Text made safe as XML character data or an attribute value. */
export function xmlEscape(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.replace(/[&<>"']/g, (char) => XML_ENTITIES[char]!);
}

/** Registers `$xmlEscape(text)` on a compiled expression. */
export function registerXmlFunctions(expression: jsonata.Expression): void {
  expression.registerFunction('xmlEscape', xmlEscape, '<j-:s>');
}
