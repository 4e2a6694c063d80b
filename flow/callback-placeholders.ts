// The stand-in a flow sees for a waitForCallback step's callback URL. The URL
// carries a token that is a capability: whoever holds it resumes the step. So
// the workflow (its formula context, history, logs) only ever holds
// `flowhook-callback-<nonce>-<step>`, and the httpRequest activity asks the
// engine for real URLs and writes them in just before it sends. Pure: the
// workflow sandbox and the worker's activities both use it.

const PREFIX = 'flowhook-callback-';

/** A step's placeholder: URL-safe characters only, so `$encodeUrlComponent`, JSON and header values keep it intact. */
export function callbackPlaceholder(nonce: string, step: string): string {
  return `${PREFIX}${nonce}-${step}`;
}

/** What the httpRequest step hands its activity: which step's URL goes where its placeholder is. */
export interface CallbackReference {
  step: string;
  placeholder: string;
}

/**
 * Replaces every placeholder of `replacements` (placeholder → text) in `text`.
 * The longest placeholder wins where several start at one place: step `ab`'s
 * placeholder begins with step `a`'s, and must not be read as `a`'s plus "b".
 */
export function replacePlaceholders(text: string, replacements: ReadonlyMap<string, string>): string {
  const pattern = placeholderPattern(replacements.keys());
  return pattern ? text.replace(pattern, (found) => replacements.get(found) ?? found) : text;
}

/** The placeholders of `placeholders` that occur in any of `texts` (by the same longest-match rule). */
export function placeholdersIn(texts: readonly string[], placeholders: Iterable<string>): Set<string> {
  const found = new Set<string>();
  const pattern = placeholderPattern(placeholders);
  if (!pattern) return found;
  for (const text of texts) for (const match of text.matchAll(pattern)) found.add(match[0]);
  return found;
}

function placeholderPattern(placeholders: Iterable<string>): RegExp | undefined {
  const sorted = [...placeholders].sort((a, b) => b.length - a.length);
  if (sorted.length === 0) return undefined;
  // Placeholders are letters, digits, `-` and `_`: nothing to escape, but escaping keeps that an assumption-free fact.
  return new RegExp(sorted.map((placeholder) => placeholder.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'), 'g');
}
