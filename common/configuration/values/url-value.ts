// An http(s) URL, and the origin of one. A base URL (where paths are appended: the engine's
// Connect endpoint, the public URL, an OTLP collector) has no query or fragment — appending to
// one would produce a wrong URL — and loses trailing slashes. A URL that signing keys or tokens
// are fetched from (an identity provider) must be https, except on a loopback host.
import { isLoopbackHost } from '../../loopback-host.ts';
import { withoutTrailingSlashes } from '../../trailing-slashes.ts';
import { ValueError, type ValueType } from './value-type.ts';

export interface UrlOptions {
  /** Paths are appended to it: no query or fragment, no trailing slash. */
  base?: boolean;
  /** https only, but http on a loopback host (a local identity provider in development and tests). */
  secure?: boolean;
}

export function url(options: UrlOptions = {}): ValueType<string> {
  const scheme = options.secure ? 'an https URL (http only on a loopback host)' : 'an http(s) URL';
  return {
    description: `${options.secure ? 'https' : 'http(s)'}${options.base ? ' base' : ''} URL`,
    parse(text) {
      const parsed = parseUrl(text);
      const allowed =
        parsed?.protocol === 'https:' ||
        (parsed?.protocol === 'http:' && (!options.secure || isLoopbackHost(parsed.hostname)));
      if (!parsed || !allowed) throw new ValueError(`must be ${scheme}`);
      if (!options.base) return text;
      if (parsed.search || parsed.hash || text.endsWith('?') || text.endsWith('#'))
        throw new ValueError(`must be ${scheme} without a query or fragment`);
      return withoutTrailingSlashes(text);
    },
    format: String,
  };
}

/** Exactly scheme://host[:port], as a browser sends it in Origin: no path, no wildcard. */
export function origin(): ValueType<string> {
  return {
    description: 'origin (scheme://host[:port])',
    parse(text) {
      const parsed = parseUrl(text);
      if (
        !parsed ||
        (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') ||
        parsed.origin !== text.replace(/\/$/, '') ||
        text.includes('*')
      ) {
        throw new ValueError('must be exactly scheme://host[:port] (no path, no wildcard), e.g. http://127.0.0.1:8233');
      }
      return parsed.origin;
    },
    format: String,
  };
}

function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}
