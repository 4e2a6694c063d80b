// The regular expressions of formulas (`/…/` literals in `$match`,
// `$contains`, `$replace`, `$split`, …) run on RE2 (the re2js package), whose
// matching time grows linearly with the text: JavaScript's own backtracking
// engine takes exponential time on patterns like /^(a+)+$/ over caller text,
// and a formula runs on the worker's thread that every flow shares.
//
// RE2 cannot express backreferences and lookaround; such a literal is refused
// when the formula is compiled, so at publish (with the reason), never halfway
// through an execution. JavaScript spellings RE2 lacks (`\uXXXX`, `(?<name>…)`,
// `[^]`, `\/`) are translated by re2js; the meaning is RE2's otherwise (see
// docs/reference/formulas.md: `.` and `\s` differ slightly, `\p{L}` is a Unicode class).
//
// JSONata hands its engine the parsed RegExp and then drives it like a global
// RegExp: `lastIndex`, then `exec(text)`. Each search is charged to the
// evaluation budget for the text it may scan (evaluation-limits.ts).

import { RE2JS } from 're2js';

/** A regex literal RE2 cannot run; the message says which and why. */
export class UnsupportedRegexError extends Error {
  override name = 'UnsupportedRegexError';
}

/** What a search costs: called with the number of characters it may scan. */
export type ScanCharge = (characters: number) => void;

/** The compiled patterns, kept with the parsed literal (a compiled formula's syntax tree holds it). */
const compiled = new WeakMap<RegExp, RE2JS>();

/** The literal compiled for RE2; throws UnsupportedRegexError when RE2 cannot express it. */
export function linearPattern(literal: RegExp): RE2JS {
  let pattern = compiled.get(literal);
  if (!pattern) {
    pattern = compile(literal);
    compiled.set(literal, pattern);
  }
  return pattern;
}

/**
 * Compiles every regex literal of a formula's syntax tree for RE2, so that a
 * literal RE2 cannot run fails the formula's compilation (and so its publish).
 */
export function compileRegexLiterals(ast: unknown): void {
  const seen = new Set<object>();
  const pending: unknown[] = [ast];
  while (pending.length > 0) {
    const node = pending.pop();
    if (typeof node !== 'object' || node === null || seen.has(node)) continue;
    seen.add(node);
    if (node instanceof RegExp) linearPattern(node);
    else pending.push(...Object.values(node));
  }
}

function compile(literal: RegExp): RE2JS {
  const named = namedBackreference(literal.source);
  if (named) throw new UnsupportedRegexError(refusal(literal, `a backreference (${named}) is not supported`));
  let flags = 0;
  if (literal.ignoreCase) flags |= RE2JS.CASE_INSENSITIVE;
  if (literal.multiline) flags |= RE2JS.MULTILINE;
  try {
    return RE2JS.compile(RE2JS.translateRegExp(literal.source), flags);
  } catch (error) {
    throw new UnsupportedRegexError(refusal(literal, explain(error)));
  }
}

function refusal(literal: RegExp, reason: string): string {
  // As written in the formula: JSONata adds the g flag itself.
  return `regular expression /${literal.source}/${literal.flags.replace('g', '')} cannot run in linear time (RE2 syntax): ${reason}`;
}

/** RE2's complaint, told in the terms of what the author wrote. */
function explain(error: unknown): string {
  const syntax = error as { getDescription?: () => string; getPattern?: () => string | null; message?: string };
  const description = syntax.getDescription?.() ?? syntax.message ?? String(error);
  const part = syntax.getPattern?.() ?? '';
  if (part.startsWith('(?=') || part.startsWith('(?!')) return `lookahead (${part.slice(0, 3)}…) is not supported`;
  if (part.startsWith('(?<=') || part.startsWith('(?<!')) return `lookbehind (${part.slice(0, 4)}…) is not supported`;
  if (/^\\[1-9]/.test(part)) return `a backreference (${part}) is not supported`;
  return part ? `${description}: ${part}` : description;
}

/**
 * `\k<name>` outside a character class: JavaScript's named backreference,
 * which re2js's translation would turn into the letters `k<name>`.
 */
function namedBackreference(source: string): string | undefined {
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      if (!inClass && source[i + 1] === 'k' && source[i + 2] === '<')
        return source.slice(i, source.indexOf('>', i) + 1 || undefined);
      i++;
    } else if (c === '[') {
      inClass = true;
    } else if (c === ']') {
      inClass = false;
    }
  }
  return undefined;
}

/**
 * The engine JSONata constructs for each evaluation of a regex literal
 * (`new RegexEngine(literal)`), with the RegExp members it uses.
 */
export class LinearRegex {
  lastIndex = 0;
  readonly #pattern: RE2JS;
  readonly #charge: ScanCharge | undefined;

  constructor(literal: RegExp, charge?: ScanCharge) {
    this.#pattern = linearPattern(literal);
    this.#charge = charge;
  }

  /** Like a global RegExp's exec: searches from lastIndex, moves it past the match, resets it on a miss. */
  exec(text: string): RegExpExecArray | null {
    const from = this.lastIndex;
    if (from > text.length) {
      this.lastIndex = 0;
      return null;
    }
    // RE2 is linear, but may read on to the end of the text even after a match:
    // that is what one search can cost.
    this.#charge?.(text.length - from + 1);
    const matcher = this.#pattern.matcher(text);
    if (!matcher.find(from)) {
      this.lastIndex = 0;
      return null;
    }
    const found: string[] = [];
    for (let group = 0; group <= matcher.groupCount(); group++)
      found.push(matcher.group(group) ?? (undefined as unknown as string));
    this.lastIndex = matcher.end();
    return Object.assign(found, { index: matcher.start(), input: text }) as RegExpExecArray;
  }
}

/** What JSONata constructs: `new RegexEngine(literal)`. */
export type RegexEngineClass = new (literal: RegExp) => LinearRegex;

/** The engine class for evaluations whose searches are charged with `charge`. */
export function chargedRegexEngine(charge: ScanCharge): RegexEngineClass {
  return class extends LinearRegex {
    constructor(literal: RegExp) {
      super(literal, charge);
    }
  };
}
