// One error type for everything that can go wrong with a placeholder:
// template syntax, JSONata syntax, JSONata runtime errors and the evaluation
// limits. The interpreter turns it into a step failure, so the message must
// name the formula (what the flow author wrote) but never the data it ran on.

/** Longest formula text quoted in a message; the full text stays in `formula`. */
const QUOTE_LIMIT = 200;

export class FormulaError extends Error {
  /** The placeholder as written in the template, e.g. `${Variables.x +}`. */
  readonly formula: string;
  /** What went wrong, without any evaluated input data. */
  readonly reason: string;

  constructor(formula: string, reason: string) {
    const quoted = formula.length > QUOTE_LIMIT ? `${formula.slice(0, QUOTE_LIMIT)}…` : formula;
    super(`Formula "${quoted}" failed: ${reason}`);
    this.name = 'FormulaError';
    this.formula = formula;
    this.reason = reason;
  }
}
