// A value type of the configuration table: how one kind of value (a port, a duration, a URL…) is
// read from the text of an environment variable, and how it reads in `--help` and the reference.
// Each type has exactly one parser, so every variable of a type accepts and refuses the same
// spellings; the bounds a variable needs are options of its type, written in its row.

export interface ValueType<T> {
  /** The type and its bounds in words, for the reference: "port 1..65535", "duration ≥ 1h". */
  readonly description: string;
  /** The value of a set variable (its text trimmed, never empty); throws ValueError when it is not one. */
  parse(text: string): T;
  /** A value written back as a person would set it (a default: `30d`, not 2592000000). */
  format(value: T): string;
}

/**
 * A text that is not a value of its type. The message finishes "<VARIABLE> …" ("must be an
 * integer >= 1"); the reader adds the variable's name and, unless the variable is a secret, the
 * text it got — or only `quote`, the offending part of a list.
 */
export class ValueError extends Error {
  readonly quote: string | undefined;

  constructor(message: string, quote?: string) {
    super(message);
    this.quote = quote;
  }
}
