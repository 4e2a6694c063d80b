// Reading a connection's secret (API key, password, token, client secret)
// without it ever being on the command line, where `ps` and the shell history
// would show it: from a file, from piped stdin, or typed at a terminal with
// echo off. The secret's text never goes into a message.
import { readFile } from 'node:fs/promises';
import { StringDecoder } from 'node:string_decoder';
import { Code } from '@connectrpc/connect';
import { CliError } from './admin-action.ts';
import type { CliIo } from './output.ts';

/** The stream a secret is piped or typed into; process.stdin in the CLI, a stream of their own in tests. */
export interface SecretStdin {
  stream: NodeJS.ReadableStream & { isRaw?: boolean; setRawMode?: (raw: boolean) => unknown };
  /** A terminal: prompt on stderr and read one line without echo; otherwise read the stream to its end. */
  isTTY: boolean;
}

/** The process's stdin, looked at only when a secret is actually read. */
export function processSecretStdin(): SecretStdin {
  return { stream: process.stdin, isTTY: process.stdin.isTTY === true };
}

/** The wiring of a command that reads a secret (`connection set`, `hook-secret set`). */
export interface SecretStdinDeps {
  /** Where a secret given by no file is piped or typed. Default: the process's stdin. */
  stdin?: () => SecretStdin;
}

export interface ReadSecretOptions extends SecretStdinDeps {
  /** --secret-file: a path, or `-` (or absent) for stdin. */
  file?: string;
  /** Where the terminal prompt goes (stderr). */
  io: CliIo;
  /** Shown before hidden terminal input. */
  prompt: string;
}

/**
 * The secret from the file or stdin, with exactly one trailing line break
 * (`\n` or `\r\n`) removed; any other whitespace is part of the secret.
 */
export async function readSecret(options: ReadSecretOptions): Promise<string> {
  if (options.file !== undefined && options.file !== '-') {
    let text: string;
    try {
      text = await readFile(options.file, 'utf8');
    } catch (error) {
      // Not the path itself: a secret mistakenly given as the path would show up here.
      const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
      throw new CliError(`cannot read the file given to --secret-file (${code})`, Code.InvalidArgument);
    }
    return stripOneLineBreak(text);
  }
  const stdin = (options.stdin ?? processSecretStdin)();
  if (stdin.isTTY) return readHiddenLine(stdin, options.io, options.prompt);
  return stripOneLineBreak(await readAll(stdin.stream));
}

/**
 * readSecret, refusing an empty secret: "the <what> is empty: nothing was read from stdin" (or from the
 * file), then `hint`.
 */
export async function readRequiredSecret(
  options: ReadSecretOptions & { what: string; hint?: string },
): Promise<string> {
  const secret = await readSecret(options);
  if (secret !== '') return secret;
  const source = options.file !== undefined && options.file !== '-' ? 'the file given to --secret-file' : 'stdin';
  throw new CliError(
    `the ${options.what} is empty: nothing was read from ${source}${options.hint ?? ''}`,
    Code.InvalidArgument,
  );
}

export function stripOneLineBreak(text: string): string {
  if (text.endsWith('\r\n')) return text.slice(0, -2);
  if (text.endsWith('\n')) return text.slice(0, -1);
  return text;
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * One line typed at a terminal, in raw mode so nothing is echoed. Enter ends
 * it, Backspace deletes, Ctrl-U clears, Ctrl-C cancels, Ctrl-D ends input;
 * escape sequences (arrow keys, bracketed paste markers) are ignored. The
 * terminal's mode is restored whatever happens.
 */
export function readHiddenLine(stdin: SecretStdin, io: CliIo, prompt: string): Promise<string> {
  const { stream } = stdin;
  if (typeof stream.setRawMode !== 'function') {
    return Promise.reject(
      new CliError(
        'cannot turn off echo on this terminal; give the secret with --secret-file <path> (or pipe it to stdin)',
        Code.FailedPrecondition,
      ),
    );
  }
  io.err(`${prompt} `);
  const wasRaw = stream.isRaw === true;
  stream.setRawMode(true);
  const decoder = new StringDecoder('utf8');
  let line = '';
  // 0: text; 1: after ESC; 2: inside a CSI sequence (ESC [ … final byte).
  let escape = 0;
  return new Promise<string>((resolve, reject) => {
    let done = false;
    const finish = (error?: Error) => {
      if (done) return;
      done = true;
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.setRawMode?.(wasRaw);
      stream.pause();
      io.err('\n');
      if (error) reject(error);
      else resolve(line);
    };
    const onData = (chunk: Buffer | string) => {
      const text = typeof chunk === 'string' ? chunk : decoder.write(chunk);
      for (const char of text) {
        if (escape === 1) {
          escape = char === '[' ? 2 : 0;
          continue;
        }
        if (escape === 2) {
          if (char >= '@' && char <= '~') escape = 0;
          continue;
        }
        if (char === '\r' || char === '\n' || char === '\u0004') return finish();
        if (char === '\u0003') return finish(new CliError('cancelled', Code.Canceled));
        if (char === '\u001b') escape = 1;
        else if (char === '\u007f' || char === '\b') line = Array.from(line).slice(0, -1).join('');
        else if (char === '\u0015') line = '';
        else if (char >= ' ') line += char;
      }
    };
    const onEnd = () => finish();
    const onError = (error: Error) => finish(error);
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.resume();
  });
}
