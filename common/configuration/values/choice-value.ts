// One of a few words (any case), e.g. a log level.
import { ValueError, type ValueType } from './value-type.ts';

export function choice<const C extends string>(choices: readonly C[]): ValueType<C> {
  const listed = choices.length === 1 ? choices[0] : `${choices.slice(0, -1).join(', ')} or ${choices.at(-1)}`;
  const expected = choices.length > 2 ? `must be one of ${choices.join(', ')}` : `must be ${listed}`;
  return {
    description: choices.join(' | '),
    parse(text) {
      const lower = text.toLowerCase();
      const found = choices.find((candidate) => candidate === lower);
      if (found === undefined) throw new ValueError(expected);
      return found;
    },
    format: String,
  };
}
