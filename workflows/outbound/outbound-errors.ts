// The two ways an outbound call can fail, as the httpRequest activity reports
// them: refused (by the egress policy, a connection's pin, a limit — retrying
// cannot help, so never retried) or failed (network, timeout — retried by
// Temporal per the step's policy). Messages name hosts and rules, never header
// values, bodies or credentials.

export class OutboundRefused extends Error {
  readonly type: string;
  constructor(message: string, type: string) {
    super(message);
    this.name = 'OutboundRefused';
    this.type = type;
  }
}

export class OutboundFailed extends Error {
  readonly type: string;
  constructor(message: string, type = 'HttpRequestFailed') {
    super(message);
    this.name = 'OutboundFailed';
    this.type = type;
  }
}

/** Where a request went, for messages: origin and path, never the query (it may carry a token). */
export function describeTarget(method: string, url: URL): string {
  return `${method} ${url.origin}${url.pathname}`;
}
