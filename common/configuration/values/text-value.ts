// Free text (a host name, a namespace, a claim name), text of a given shape, or text whose
// structure the module that uses it reads (a list of keys, of egress rules, of issuers): that
// module names the variable when an item is wrong.
import { ValueError, type ValueType } from './value-type.ts';

export function text(shape?: { pattern?: RegExp; description: string }): ValueType<string> {
  return {
    description: shape?.description ?? 'text',
    parse(value) {
      if (shape?.pattern && !shape.pattern.test(value)) throw new ValueError(`must be ${shape.description}`);
      return value;
    },
    format: String,
  };
}
