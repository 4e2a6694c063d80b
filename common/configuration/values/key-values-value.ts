// `key=value,key2=value2` with percent-encoded parts, the W3C Baggage syntax the OpenTelemetry
// variables use for headers and resource attributes. Header values are credentials: a wrong
// item is named by its position, never quoted.
import { ValueError, type ValueType } from './value-type.ts';

export function keyValues(): ValueType<Readonly<Record<string, string>>> {
  return {
    description: 'comma list of key=value',
    parse(text) {
      const pairs: Record<string, string> = {};
      let position = 0;
      for (const item of text.split(',')) {
        if (item.trim() === '') continue;
        position += 1;
        const at = item.indexOf('=');
        const key = at > 0 ? decode(item.slice(0, at).trim()) : '';
        if (!key) throw new ValueError(`must be a comma list of key=value, item ${position} is not`);
        pairs[key] = decode(item.slice(at + 1).trim());
      }
      return Object.freeze(pairs);
    },
    format: (pairs) =>
      Object.entries(pairs)
        .map(([key, value]) => `${key}=${value}`)
        .join(','),
  };
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
