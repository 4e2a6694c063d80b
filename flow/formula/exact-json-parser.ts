// A JSON parser that gives the same value as JSON.parse and also records, for
// every object and array, its exact source slice, and for every number that
// JavaScript would print differently, its spelling (exact-source.ts). The
// payload is parsed with it once per execution, so a formula that hands a
// payload value on unchanged writes it as the caller sent it.
//
// Runs in the workflow sandbox: pure, no I/O. Nesting is bounded before the
// workflow starts (common/json-depth.ts, 100 levels), so recursion is safe.
// Error messages give an offset, never the text: the payload may be secret.

import { forgetSpelling, rememberSource, rememberSpelling } from './exact-source.ts';
import { setOwnMember } from '../../common/own-member.ts';

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const SIMPLE_INTEGER = /^[1-9]\d*$/;
/** What stops a string's fast path: an escape or a control character (which JSON forbids raw). */
// eslint-disable-next-line no-control-regex -- finding raw control characters is this pattern's purpose
const NEEDS_CARE = /[\\\u0000-\u001f]/;

/** JSON.parse(text), with the exact text of every value remembered; the whole text belongs to the top-level object or array. */
export function parseExactJson(text: string): unknown {
  const reader = new ExactJsonReader(text);
  reader.skipSpace();
  const value = reader.readValue();
  reader.skipSpace();
  if (reader.at !== text.length) reader.fail('unexpected text after the value');
  // Whitespace around the top level is kept too: `${Trigger.Payload}` writes what `{{Trigger.Payload}}` writes.
  if (value !== null && typeof value === 'object') rememberSource(value, text);
  return value;
}

class ExactJsonReader {
  at = 0;
  private readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  fail(what: string): never {
    throw new SyntaxError(`not valid JSON: ${what} at offset ${this.at}`);
  }

  skipSpace(): void {
    const { text } = this;
    while (this.at < text.length) {
      const c = text.charCodeAt(this.at);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      this.at++;
    }
  }

  readValue(): unknown {
    const c = this.text.charCodeAt(this.at);
    if (c === 0x7b) return this.readObject();
    if (c === 0x5b) return this.readArray();
    if (c === 0x22) return this.readString();
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) return this.readNumber();
    if (this.text.startsWith('true', this.at)) return this.literal(4, true);
    if (this.text.startsWith('false', this.at)) return this.literal(5, false);
    if (this.text.startsWith('null', this.at)) return this.literal(4, null);
    return this.fail(this.at >= this.text.length ? 'unexpected end' : 'unexpected character');
  }

  /** Reads a member or item into `holder`, keeping a number's spelling. */
  private readInto(holder: Record<string, unknown> | unknown[], key: string): void {
    const start = this.at;
    const value = this.readValue();
    if (typeof value === 'number') {
      // Most numbers print as written; only the others cost a slice and a map entry.
      if (!this.printsAsWritten(value, start)) rememberSpelling(holder, key, this.text.slice(start, this.at));
      else if (!Array.isArray(holder)) forgetSpelling(holder, key);
    } else if (!Array.isArray(holder)) {
      forgetSpelling(holder, key);
    }
    if (Array.isArray(holder)) holder.push(value);
    // JSON.parse makes `__proto__` an own member, and so does this parser.
    else setOwnMember(holder, key, value);
  }

  private readObject(): Record<string, unknown> {
    const start = this.at++;
    const object: Record<string, unknown> = {};
    this.skipSpace();
    if (this.text.charCodeAt(this.at) === 0x7d) return this.close(object, start);
    while (true) {
      if (this.text.charCodeAt(this.at) !== 0x22) this.fail('expected a member name');
      const key = this.readString();
      this.skipSpace();
      if (this.text.charCodeAt(this.at) !== 0x3a) this.fail('expected ":"');
      this.at++;
      this.skipSpace();
      this.readInto(object, key);
      this.skipSpace();
      const c = this.text.charCodeAt(this.at);
      if (c === 0x7d) return this.close(object, start);
      if (c !== 0x2c) this.fail('expected "," or "}"');
      this.at++;
      this.skipSpace();
    }
  }

  private readArray(): unknown[] {
    const start = this.at++;
    const array: unknown[] = [];
    this.skipSpace();
    if (this.text.charCodeAt(this.at) === 0x5d) return this.close(array, start);
    while (true) {
      this.readInto(array, String(array.length));
      this.skipSpace();
      const c = this.text.charCodeAt(this.at);
      if (c === 0x5d) return this.close(array, start);
      if (c !== 0x2c) this.fail('expected "," or "]"');
      this.at++;
      this.skipSpace();
    }
  }

  private close<T extends object>(node: T, start: number): T {
    this.at++;
    rememberSource(node, this.text.slice(start, this.at));
    return node;
  }

  /** Whether the number just read, from `start`, is spelled as String(value) spells it. */
  private printsAsWritten(value: number, start: number): boolean {
    const length = this.at - start;
    // Up to 15 digits, no sign and no fraction: an integer a double holds exactly, printed the same.
    if (length <= 15 && Number.isInteger(value) && value > 0)
      return SIMPLE_INTEGER.test(this.text.slice(start, this.at));
    const printed = String(value);
    return printed.length === length && this.text.startsWith(printed, start);
  }

  private readString(): string {
    const { text } = this;
    const start = this.at;
    // Fast path: no escape and no control character before the closing quote (native scans).
    const close = text.indexOf('"', start + 1);
    if (close > start) {
      const content = text.slice(start + 1, close);
      if (!NEEDS_CARE.test(content)) {
        this.at = close + 1;
        return content;
      }
    }
    let escaped = false;
    let i = start + 1;
    for (; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x22) break;
      if (c < 0x20) {
        this.at = i;
        this.fail('control character in a string');
      }
      if (c === 0x5c) {
        escaped = true;
        i++;
      }
    }
    if (i >= text.length) {
      this.at = text.length;
      this.fail('unterminated string');
    }
    this.at = i + 1;
    if (!escaped) return text.slice(start + 1, i);
    // Escapes are rare in payloads; the built-in decodes (and checks) them exactly as JSON.parse does.
    try {
      return JSON.parse(text.slice(start, i + 1)) as string;
    } catch {
      this.at = start;
      return this.fail('bad escape in a string');
    }
  }

  private readNumber(): number {
    NUMBER.lastIndex = this.at;
    if (!NUMBER.test(this.text)) this.fail('bad number');
    const start = this.at;
    this.at = NUMBER.lastIndex;
    return Number(this.text.slice(start, this.at));
  }

  private literal<T>(length: number, value: T): T {
    this.at += length;
    return value;
  }
}
