// A switch: true or false (any case), or 1 and 0 as the Temporal CLI and SDKs also read them.
import { ValueError, type ValueType } from './value-type.ts';

export function boolean(): ValueType<boolean> {
  return {
    description: 'true or false',
    parse(text) {
      const lower = text.toLowerCase();
      if (lower === 'true' || lower === '1') return true;
      if (lower === 'false' || lower === '0') return false;
      throw new ValueError('must be true or false');
    },
    format: String,
  };
}
