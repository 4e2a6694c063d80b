// A bearer token or shared credential: long enough not to be guessed, and without white space,
// which an `authorization: Bearer …` header could not carry whole.
import { ValueError, type ValueType } from './value-type.ts';

export const MIN_TOKEN_LENGTH = 16;

export function token(): ValueType<string> {
  const expected = `must have at least ${MIN_TOKEN_LENGTH} characters and no white space`;
  return {
    description: `token, ${MIN_TOKEN_LENGTH}+ characters`,
    parse(value) {
      if (value.length < MIN_TOKEN_LENGTH || /\s/.test(value)) throw new ValueError(expected);
      return value;
    },
    format: () => '…',
  };
}
