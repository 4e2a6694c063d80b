// A decimal number within bounds, e.g. a sampling ratio (0.25). Digits and one point only.
import { ValueError, type ValueType } from './value-type.ts';

export function decimal(options: { min: number; max: number }): ValueType<number> {
  const expected = `must be a number from ${options.min} to ${options.max}`;
  return {
    description: `number ${options.min}..${options.max}`,
    parse(text) {
      const value = /^(\d+(\.\d*)?|\.\d+)$/.test(text) ? Number(text) : Number.NaN;
      if (!(value >= options.min && value <= options.max)) throw new ValueError(expected);
      return value;
    },
    format: String,
  };
}
