// Servers we start log to a pipe. We keep the last lines for error messages
// (a failed start should say why) and hand each complete line to a filter that
// decides what the user sees, so normal chatter stays out of the console.
import type { Readable } from 'node:stream';

export type LineTail = {
  /** Feed a stream; each complete line goes to the tail and to `onLine`. */
  follow(stream: Readable | null, onLine?: (line: string) => void): void;
  /** The last lines seen, oldest first, joined for an error message. */
  text(): string;
};

export function createLineTail(maxLines = 40): LineTail {
  const lines: string[] = [];
  const remember = (line: string) => {
    lines.push(line);
    if (lines.length > maxLines) lines.shift();
  };
  return {
    follow(stream, onLine) {
      if (!stream) return;
      let partial = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => {
        const parts = (partial + chunk).split(/\r?\n/);
        partial = parts.pop() ?? '';
        for (const line of parts) {
          if (!line.trim()) continue;
          remember(line);
          onLine?.(line);
        }
      });
      stream.on('end', () => {
        if (partial.trim()) {
          remember(partial);
          onLine?.(partial);
        }
        partial = '';
      });
    },
    text() {
      return lines.length ? lines.join('\n') : '(no output)';
    },
  };
}
