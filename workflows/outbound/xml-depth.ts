// How deeply an XML answer nests its elements, found with one forward scan
// that never looks at a character twice. The httpRequest activity refuses an
// absurdly deep answer before parsing it (formulas walk answers recursively),
// and the answer is upstream data of any shape: a regular expression that
// retries at every '<' of a tag that never closes takes quadratic time (a
// 1 MiB answer of `<a<a<a…` held the worker's thread for minutes).
//
// The scan follows XML's own structure so that markup-like text is not counted:
// comments, CDATA sections, processing instructions and the DOCTYPE (with its
// internal subset) are skipped whole, and a '>' inside a quoted attribute value
// does not end its tag. Anything the scan cannot make sense of (a construct that
// never ends) ends the scan: what follows is not markup the parser could accept.

/** The deepest element nesting of `text`, counting stops as soon as it exceeds `limit`. */
export function xmlDepth(text: string, limit = Number.POSITIVE_INFINITY): number {
  let depth = 0;
  let deepest = 0;
  let i = text.indexOf('<');
  while (i !== -1 && i < text.length) {
    const next = text.charCodeAt(i + 1);
    let end: number;
    if (next === SLASH) {
      // A closing tag has no attributes: its first '>' ends it. Closing more than
      // was opened does not make room for deeper nesting later.
      end = after(text, '>', i + 2);
      if (end !== -1 && isNameStart(text.charCodeAt(i + 2))) depth = Math.max(0, depth - 1);
    } else if (next === BANG) {
      end = declarationEnd(text, i);
    } else if (next === QUESTION) {
      end = after(text, '?>', i + 2);
    } else if (isNameStart(next)) {
      end = tagEnd(text, i + 1);
      if (end !== -1 && text.charCodeAt(end - 2) !== SLASH) {
        deepest = Math.max(deepest, ++depth);
        if (deepest > limit) return deepest;
      }
    } else {
      end = i + 1; // a lone '<' is no markup; the parser will say what is wrong with it
    }
    if (end === -1) break;
    i = text.indexOf('<', end);
  }
  return deepest;
}

/** True when the XML text nests its elements deeper than `maxDepth`. */
export function xmlNestsDeeperThan(text: string, maxDepth: number): boolean {
  return xmlDepth(text, maxDepth) > maxDepth;
}

const SLASH = 0x2f;
const BANG = 0x21;
const QUESTION = 0x3f;
const LT = 0x3c;
const GT = 0x3e;
const QUOTE = 0x22;
const APOSTROPHE = 0x27;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/**
 * The index after the '>' that ends a tag whose name starts at `from`; quoted
 * attribute values may hold '>'. -1 when the tag never ends.
 */
function tagEnd(text: string, from: number): number {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === GT) return i + 1;
    if (c === QUOTE || c === APOSTROPHE) {
      i = text.indexOf(c === QUOTE ? '"' : "'", i + 1);
      if (i === -1) return -1;
    }
  }
  return -1;
}

/** The index after a `<!…` construct starting at `start`: a comment, a CDATA section or a declaration. */
function declarationEnd(text: string, start: number): number {
  if (text.startsWith('<!--', start)) return after(text, '-->', start + 4);
  if (text.startsWith('<![CDATA[', start)) return after(text, ']]>', start + 9);
  // <!DOCTYPE …> and the declarations of its internal subset: brackets nest, quoted literals may hold anything.
  let brackets = 0;
  for (let i = start + 2; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE || c === APOSTROPHE) {
      i = text.indexOf(c === QUOTE ? '"' : "'", i + 1);
      if (i === -1) return -1;
    } else if (c === OPEN_BRACKET) {
      brackets++;
    } else if (c === CLOSE_BRACKET) {
      brackets--;
    } else if (c === GT && brackets <= 0) {
      return i + 1;
    } else if (c === LT && text.startsWith('<!--', i)) {
      i = after(text, '-->', i + 4) - 1;
      if (i === -2) return -1;
    }
  }
  return -1;
}

function after(text: string, terminator: string, from: number): number {
  const at = text.indexOf(terminator, from);
  return at === -1 ? -1 : at + terminator.length;
}

/** XML's NameStartChar, except that every non-ASCII character counts (the parser judges those). */
function isNameStart(c: number): boolean {
  return (c >= 0x61 && c <= 0x7a) || (c >= 0x41 && c <= 0x5a) || c === 0x5f || c === 0x3a || c >= 0x80;
}
