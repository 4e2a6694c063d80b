// A whole number in decimal digits, within bounds. Nothing else spells one: not `1e6`, `0x10`,
// `1.0` or `+5`, which JavaScript's Number() would read and an operator reading the value back
// would not expect.
import { ValueError, type ValueType } from './value-type.ts';

export interface IntegerOptions {
  min: number;
  max?: number;
  /** What 0 means when it is allowed below `min` (e.g. "no limit"). */
  zero?: string;
  /** For the reference: "ms", "bytes", "seconds", "per second". */
  unit?: string;
}

export function integer(options: IntegerOptions): ValueType<number> {
  const { min, max, zero, unit } = options;
  const range = max === undefined ? `>= ${min}` : `from ${min} to ${max}`;
  const expected = zero === undefined ? `must be an integer ${range}` : `must be 0 (${zero}) or an integer ${range}`;
  const bounds = max === undefined ? `≥ ${min}` : `${min}..${max}`;
  return {
    description: `integer ${zero === undefined ? bounds : `0 (${zero}) or ${bounds}`}${unit ? `, ${unit}` : ''}`,
    parse(text) {
      const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
      const inRange = Number.isSafeInteger(value) && value >= min && (max === undefined || value <= max);
      if (!inRange && !(zero !== undefined && value === 0)) throw new ValueError(expected);
      return value;
    },
    format: String,
  };
}
