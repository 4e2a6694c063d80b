// A comma list of values of one type; blank items are skipped. A wrong item is named by its
// position, and quoted only when the variable is not a secret (the reader decides).
import { ValueError, type ValueType } from './value-type.ts';

export function list<T>(item: ValueType<T>): ValueType<T[]> {
  return {
    description: `comma list of ${item.description}`,
    parse(text) {
      const items = text
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== '');
      return items.map((entry, index) => {
        try {
          return item.parse(entry);
        } catch (error) {
          if (!(error instanceof ValueError)) throw error;
          throw new ValueError(`item ${index + 1} ${error.message}`, entry);
        }
      });
    },
    format: (values) => values.map((value) => item.format(value)).join(','),
  };
}
