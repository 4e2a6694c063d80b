// Commands flowhook prints for users to copy (`flowhook secret rotate 'Contoso & Co' orders.new`)
// must survive a POSIX shell: both the CLI and the engine's hints quote through here.

/** A shell argument, quoted only when it needs to be. */
export function shellArg(value: string): string {
  return /^[\w./:@=+-]+$/.test(value) ? value : shellQuote(value);
}

/** A value for a shell command line in single quotes (POSIX shells). */
export function shellQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}
