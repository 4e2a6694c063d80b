// How deeply a JSON text nests objects and arrays, found with one linear scan
// and no recursion. Payloads nested absurdly deep are refused before a flow
// walks them recursively (its formulas do). The engine checks with this
// function; the facade enforces the same bound while it scans the body for
// the payload text (facade/payload-extract.ts), so it needs no second pass.

/** Deepest nesting a webhook body (and so its payload) may have. */
export const MAX_JSON_DEPTH = 100;

/** True when the (already well-formed) JSON text nests deeper than `maxDepth`. */
export function nestsDeeperThan(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // an escape covers the next character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) {
      inString = true;
    } else if (c === 0x7b || c === 0x5b) {
      if (++depth > maxDepth) return true;
    } else if (c === 0x7d || c === 0x5d) {
      depth--;
    }
  }
  return false;
}
