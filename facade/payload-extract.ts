// The trigger output `Payload` is the `payload` member's JSON text exactly as
// the caller sent it: key order, white space, number
// spelling, big integers and escapes included. Parsing and re-serialising
// loses all of that, so this small scanner walks the top-level object of the
// raw body and cuts the member's value out of the text instead.
//
// Precondition: the text already parsed as JSON (the body parser ran first).
// The scanner still checks the top-level structure it relies on, and fails
// closed on anything it does not understand.
import { BadRequestError } from './http-errors.ts';
import { MAX_JSON_DEPTH } from '../common/json-depth.ts';

export interface TopLevelMember {
  /** The decoded key (`"pay\u006coad"` is `payload`). */
  key: string;
  /** Offsets of the value's text: `text.slice(start, end)`. */
  start: number;
  end: number;
}

// A body naming one of these twice is refused: JSON.parse silently keeps the
// last one, so the activity checked and the payload delivered could disagree.
const SINGLE_MEMBERS = ['activity', 'secret', 'payload'];

/** The exact text of the top-level `payload` member, which must be a JSON object. */
export function extractPayloadText(text: string): string {
  const members = scanTopLevelMembers(text);
  for (const key of SINGLE_MEMBERS) {
    if (members.filter((member) => member.key === key).length > 1)
      throw new BadRequestError(`duplicate member "${key}" in the request body`);
  }
  const payload = members.find((member) => member.key === 'payload');
  if (!payload) throw new BadRequestError('payload is required (a JSON object)');
  if (text[payload.start] !== '{') throw new BadRequestError('payload must be a JSON object');
  return text.slice(payload.start, payload.end);
}

/** The members of the top-level JSON object, in the order written. */
export function scanTopLevelMembers(text: string): TopLevelMember[] {
  let i = skipWhitespace(text, 0);
  if (text[i] !== '{') throw new BadRequestError('the request body must be a JSON object');
  const members: TopLevelMember[] = [];
  i = skipWhitespace(text, i + 1);
  if (text[i] === '}') return finish(text, i + 1, members);
  for (;;) {
    if (text[i] !== '"') throw malformed();
    const keyEnd = skipString(text, i);
    const key = JSON.parse(text.slice(i, keyEnd)) as string;
    i = skipWhitespace(text, keyEnd);
    if (text[i] !== ':') throw malformed();
    const start = skipWhitespace(text, i + 1);
    const end = skipValue(text, start);
    members.push({ key, start, end });
    i = skipWhitespace(text, end);
    if (text[i] === '}') return finish(text, i + 1, members);
    if (text[i] !== ',') throw malformed();
    i = skipWhitespace(text, i + 1);
  }
}

function finish(text: string, i: number, members: TopLevelMember[]): TopLevelMember[] {
  if (skipWhitespace(text, i) !== text.length) throw malformed();
  return members;
}

function malformed(): BadRequestError {
  return new BadRequestError('Malformed JSON in the request body');
}

/** JSON white space is exactly these four characters. */
function skipWhitespace(text: string, i: number): number {
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    i++;
  }
  return i;
}

/** `text[i]` is the opening quote; returns the offset after the closing one. */
function skipString(text: string, i: number): number {
  i++;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    // An escape covers the next character, so `\"` does not end the string
    // (the four hex digits of `\uXXXX` are ordinary characters for skipping).
    if (c === 0x5c) i += 2;
    else if (c < 0x20) throw malformed();
    else i++;
  }
  throw malformed();
}

const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const LITERAL = /true|false|null/y;

function skipValue(text: string, i: number): number {
  const c = text[i];
  if (c === '"') return skipString(text, i);
  if (c === '{' || c === '[') return skipContainer(text, i);
  const pattern = c === '-' || (c !== undefined && c >= '0' && c <= '9') ? NUMBER : LITERAL;
  pattern.lastIndex = i;
  if (!pattern.exec(text)) throw malformed();
  return pattern.lastIndex;
}

/**
 * Skips a nested object or array with an explicit stack instead of recursion,
 * so a deeply nested payload cannot overflow the call stack. It also enforces
 * the nesting bound (MAX_JSON_DEPTH, the body object counting as level 1):
 * flows walk payloads recursively.
 */
function skipContainer(text: string, i: number): number {
  const closers: string[] = [];
  while (i < text.length) {
    const c = text[i];
    if (c === '"') {
      i = skipString(text, i);
      continue;
    }
    if (c === '{' || c === '[') {
      closers.push(c === '{' ? '}' : ']');
      if (closers.length + 1 > MAX_JSON_DEPTH)
        throw new BadRequestError(`the request body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`);
    } else if (c === '}' || c === ']') {
      if (closers.pop() !== c) throw malformed();
      if (closers.length === 0) return i + 1;
    }
    i++;
  }
  throw malformed();
}
