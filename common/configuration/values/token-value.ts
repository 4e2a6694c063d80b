// A bearer token or shared credential: long enough not to be guessed, and without white space,
// which an `authorization: Bearer …` header could not carry whole.
import { ValueError, type ValueType } from './value-type.ts';

export const MIN_TOKEN_LENGTH = 16;

/** `minLength`: more than the default where the token opens more (an admin token: 32, what `openssl rand -hex 16` prints). */
export function token(options: { minLength?: number } = {}): ValueType<string> {
  const minLength = options.minLength ?? MIN_TOKEN_LENGTH;
  const expected = `must have at least ${minLength} characters and no white space`;
  return {
    description: `token, ${minLength}+ characters`,
    parse(value) {
      if (value.length < minLength || /\s/.test(value)) throw new ValueError(expected);
      return value;
    },
    format: () => '…',
  };
}
