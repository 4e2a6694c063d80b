// A TCP port. 0 asks the operating system for a free port, which only makes sense where
// flowhook itself opens the listener in-process and reports the port it got (the engine, the
// facade, the metrics and codec listeners; tests use it). A port handed to another program
// (embedded PostgreSQL, the Temporal dev server) or announced before anything listens (the
// Web UI's codec endpoint) must be a fixed one: those rows leave `freePort` out, so 0 is refused.
import { ValueError, type ValueType } from './value-type.ts';

export interface PortOptions {
  /** 0 is accepted and means "a free port". */
  freePort?: boolean;
}

export function port(options?: PortOptions): ValueType<number>;
export function port(options: PortOptions & { off: true }): ValueType<number | 'off'>;
export function port(options: PortOptions & { off?: boolean } = {}): ValueType<number | 'off'> {
  const min = options.freePort ? 0 : 1;
  const expected = `must be a port number (${min}..65535)${options.off ? ' or off' : ''}`;
  return {
    description: `port ${min}..65535${options.freePort ? ' (0: a free port)' : ''}${options.off ? ', or off' : ''}`,
    parse(text) {
      if (options.off && text.toLowerCase() === 'off') return 'off';
      const value = /^\d+$/.test(text) ? Number(text) : Number.NaN;
      if (!(value >= min && value <= 65535)) throw new ValueError(expected);
      return value;
    },
    format: String,
  };
}
