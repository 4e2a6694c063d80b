// A file or directory path, as given (relative paths are relative to the process's directory).
// Whether it exists and what it holds is checked where it is read, which names the variable.
import type { ValueType } from './value-type.ts';

export function path(kind: 'file' | 'directory' = 'file'): ValueType<string> {
  return { description: `${kind} path`, parse: (value) => value, format: String };
}
