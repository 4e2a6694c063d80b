// Calls to the console's listener as its own page makes them: the Connect
// protocol's JSON form over HTTP/1.1, with the headers a browser adds to a
// same-origin fetch (Origin, Sec-Fetch-Site), the session cookie it holds
// and the CSRF header the page sends. Each one can be left out or changed,
// to play the page of another site.

/** engine/edges/console/console-server.ts: the plain name over http, the `__Host-` one over TLS. */
const SESSION_COOKIES = new Set(['flowhook_console_session', '__Host-flowhook-console']);

export interface ConsoleAnswer {
  status: number;
  headers: Headers;
  json: Record<string, unknown>;
}

export interface CallOptions {
  /** Default: the console's own origin; null sends none. */
  origin?: string | null;
  secFetchSite?: string;
  /** Default: the page's CSRF token once it has one; null sends none. */
  csrf?: string | null;
  /** Default: the URL's host. */
  host?: string;
}

export class ConsolePage {
  readonly url: string;
  cookie: string | undefined;
  csrf: string | undefined;

  constructor(url: string) {
    this.url = url;
  }

  /** Signs in with an admin token (ConsoleService.SignIn), keeping the cookie and CSRF token as the page does. */
  async signIn(adminToken: string): Promise<ConsoleAnswer> {
    const answer = await this.call('flowhook.engine.v1.ConsoleService', 'SignIn', { adminToken });
    if (answer.status === 200) this.csrf = answer.json.csrfToken as string;
    return answer;
  }

  async call(service: string, method: string, body: unknown = {}, options: CallOptions = {}): Promise<ConsoleAnswer> {
    const origin = options.origin === undefined ? new URL(this.url).origin : options.origin;
    const csrf = options.csrf === undefined ? this.csrf : options.csrf;
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      'connect-protocol-version': '1',
      'sec-fetch-site': options.secFetchSite ?? 'same-origin',
    };
    if (origin !== null) headers.origin = origin;
    if (csrf) headers['x-flowhook-csrf'] = csrf;
    if (this.cookie) headers.cookie = this.cookie;
    if (options.host) headers.host = options.host;
    const response = await fetch(`${this.url}/${service}/${method}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    this.keepCookie(response.headers);
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      json: text ? (JSON.parse(text) as Record<string, unknown>) : {},
    };
  }

  flowAdmin(method: string, body: unknown = {}, options: CallOptions = {}): Promise<ConsoleAnswer> {
    return this.call('flowhook.engine.v1.FlowAdminService', method, body, options);
  }

  /** The cookie jar of one cookie: the session's, set or cleared by an answer. */
  private keepCookie(headers: Headers): void {
    for (const line of headers.getSetCookie()) {
      const [pair] = line.split(';');
      const [name, value] = pair!.split('=');
      if (!SESSION_COOKIES.has(name ?? '')) continue;
      this.cookie = value ? `${name}=${value}` : undefined;
    }
  }
}
