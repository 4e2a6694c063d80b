// Who may read /metrics. Series carry company and activity names, so the rule
// is secure by default. On a metrics port of its own (engine, worker, facade;
// metrics-listener.ts): a loopback client that is not a proxy forwarding
// someone else (no Forwarded / X-Forwarded-For / X-Real-IP header), or anyone
// presenting `Authorization: Bearer $FLOWHOOK_METRICS_TOKEN`. A reverse proxy
// on the same host connects from loopback too; the forwarding headers are what
// tell its requests apart, which is why they disqualify a loopback client.
// On the facade's public port the bearer token only: there a proxy or sidecar
// that forwards without those headers would make every caller "loopback".
import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

export const METRICS_TOKEN_VARIABLE = 'FLOWHOOK_METRICS_TOKEN';

export type MetricsAccess = { allowed: true } | { allowed: false; status: 401 | 403; message: string };

export interface MetricsClient {
  /** The socket's peer address (`req.socket.remoteAddress`). */
  remoteAddress: string | undefined;
  headers: IncomingHttpHeaders;
}

const FORWARDING_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const;
const TOKEN_MISSING: MetricsAccess = {
  allowed: false,
  status: 401,
  message: `send Authorization: Bearer <${METRICS_TOKEN_VARIABLE}>`,
};

export function metricsAccess(client: MetricsClient, token: string | undefined): MetricsAccess {
  if (client.headers.authorization !== undefined) return bearerAccess(client.headers.authorization, token);
  if (isLoopback(client.remoteAddress) && !FORWARDING_HEADERS.some((name) => client.headers[name] !== undefined))
    return { allowed: true };
  if (token !== undefined) return TOKEN_MISSING;
  return {
    allowed: false,
    status: 403,
    message: `metrics answer loopback clients only; set ${METRICS_TOKEN_VARIABLE} to scrape from elsewhere with Authorization: Bearer`,
  };
}

/** GET /metrics on a public port: the token, whoever connects. `listener` names the variable of the port where loopback clients are served. */
export function publicMetricsAccess(
  headers: IncomingHttpHeaders,
  token: string | undefined,
  listener: string,
): MetricsAccess {
  if (headers.authorization !== undefined) return bearerAccess(headers.authorization, token);
  if (token !== undefined) return TOKEN_MISSING;
  return {
    allowed: false,
    status: 403,
    message: `metrics are served on the metrics port (${listener}); on this port only with Authorization: Bearer <${METRICS_TOKEN_VARIABLE}>, which is not set`,
  };
}

function bearerAccess(authorization: string, token: string | undefined): MetricsAccess {
  const presented = /^Bearer +(\S+)\s*$/i.exec(authorization)?.[1];
  if (token !== undefined && presented !== undefined && sameSecret(presented, token)) return { allowed: true };
  return { allowed: false, status: 401, message: `the bearer token is not ${METRICS_TOKEN_VARIABLE}` };
}

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  return v4.startsWith('127.') || address === '::1';
}

/** Constant time in the length of either value: both are hashed to equal lengths first. */
function sameSecret(presented: string, expected: string): boolean {
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(presented), digest(expected));
}
