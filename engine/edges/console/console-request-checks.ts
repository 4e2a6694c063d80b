// Which browser requests the console answers, from their headers alone. A
// call (an RPC) must come from a page of the console itself: the browser says
// so in Origin (which a page cannot forge) and Sec-Fetch-Site; the console
// sends no CORS headers, so no other origin reads an answer either. And a
// console on loopback answers only loopback host names: a page of another
// site whose name an attacker points at 127.0.0.1 (DNS rebinding) is
// same-origin with itself, not with us. Pure.
import { isLoopbackHost } from '../../../common/loopback-host.ts';

export interface ConsoleSite {
  /** FLOWHOOK_CONSOLE_PUBLIC_URL's origin, when set: the only origin the console's pages have (behind a proxy the Host may be anything). */
  publicOrigin?: string;
  /** As the listener serves. */
  scheme: 'http' | 'https';
  /** Listening on loopback, with no public URL: only loopback host names are answered. */
  loopbackOnly: boolean;
}

export interface BrowserHeaders {
  host?: string;
  origin?: string;
  secFetchSite?: string;
}

/** The console's own origin as this request addresses it; undefined for a Host the console does not answer. */
export function ownOrigin(site: ConsoleSite, host: string | undefined): string | undefined {
  if (site.publicOrigin) return site.publicOrigin;
  if (!host) return undefined;
  const url = URL.parse(`${site.scheme}://${host}`);
  if (!url || url.host !== host.toLowerCase() || url.pathname !== '/') return undefined;
  if (site.loopbackOnly && !isLoopbackHost(url.hostname)) return undefined;
  return url.origin;
}

/** Why a page load (HTML, a bundle file, the sign-in redirects) is refused; undefined when it is not. */
export function refusalOfPage(site: ConsoleSite, headers: BrowserHeaders): string | undefined {
  if (ownOrigin(site, headers.host) === undefined)
    return `the console answers ${site.publicOrigin ?? 'its own address'} only (Host ${JSON.stringify(headers.host ?? '')})`;
  return undefined;
}

/** Why a call is refused; undefined when it comes from a page of the console. */
export function refusalOfCall(site: ConsoleSite, headers: BrowserHeaders): string | undefined {
  const own = ownOrigin(site, headers.host);
  if (own === undefined) return refusalOfPage(site, headers);
  if (headers.secFetchSite !== undefined && headers.secFetchSite !== 'same-origin')
    return `calls come from the console's own pages only (Sec-Fetch-Site: ${headers.secFetchSite})`;
  if (headers.origin !== own)
    return `calls come from the console's own pages only (Origin ${headers.origin === undefined ? 'missing' : JSON.stringify(headers.origin)}, expected ${own})`;
  return undefined;
}
