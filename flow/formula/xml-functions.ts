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

/** The functions by their formula name (without `$`), with JSONata signatures; publish checks read the names from here too. */
export const XML_FUNCTIONS: Readonly<
  Record<string, { implementation: (value: unknown) => unknown; signature: string }>
> = {
  xmlEscape: { implementation: xmlEscape, signature: '<j-:s>' },
};

/** Registers `$xmlEscape(text)` (and any other XML_FUNCTIONS) on a compiled expression. */
export function registerXmlFunctions(expression: jsonata.Expression): void {
  for (const [name, { implementation, signature }] of Object.entries(XML_FUNCTIONS))
    expression.registerFunction(name, implementation, signature);
}
