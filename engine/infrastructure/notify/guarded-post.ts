// One POST of an alert message to a webhook (Slack, Teams, a signed webhook):
// through the egress guard, to the checked address, following no redirect
// (a channel that moves is a channel to fix, not to follow), within a timeout,
// reading at most a few KiB of the answer. 2xx is delivered; 5xx, 429 and
// network errors may pass when tried again; anything else will not.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { EgressPolicy } from '../../../flow/egress-policy.ts';
import { checkedAddresses, pinnedLookup } from './egress-guard.ts';
import { NotifyFailed } from './notify-errors.ts';

const MAX_ANSWER_BYTES = 8 * 1024;

export interface PostRequest {
  url: URL;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
  /** How the target is named in messages: a webhook URL that is a secret shows only its host. */
  shownAs: string;
}

export async function postGuarded(request: PostRequest, policy: EgressPolicy, timeoutMs: number): Promise<number> {
  const { url } = request;
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new NotifyFailed(`${request.shownAs}: only http and https can be posted to`, false);
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
  const addresses = await checkedAddresses(host, port, policy);
  const body = Buffer.from(request.body, 'utf8');
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const status = await new Promise<number>((resolve, reject) => {
    const outgoing = send({
      method: 'POST',
      host,
      port,
      path: `${url.pathname}${url.search}`,
      headers: { host: url.host, ...request.headers, 'content-length': String(body.length) },
      lookup: pinnedLookup(addresses),
      agent: false,
      servername: isIP(host) ? undefined : host,
      signal: AbortSignal.timeout(timeoutMs),
    });
    outgoing.on('response', (answer) => {
      let read = 0;
      answer.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read > MAX_ANSWER_BYTES) answer.destroy();
      });
      answer.on('close', () => resolve(answer.statusCode ?? 0));
      answer.on('error', () => resolve(answer.statusCode ?? 0));
    });
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      const why =
        error.name === 'AbortError' || error.name === 'TimeoutError'
          ? `timed out after ${timeoutMs} ms`
          : `connection failed${error.code ? ` (${error.code})` : ''}`;
      reject(new NotifyFailed(`${request.shownAs}: ${why}`, true));
    });
    outgoing.end(body);
  });
  if (status >= 200 && status < 300) return status;
  const retryable = status >= 500 || status === 429 || status === 408;
  throw new NotifyFailed(
    `${request.shownAs} answered HTTP ${status}${status >= 300 && status < 400 ? ' (a redirect, which alerts do not follow: use the final URL)' : ''}`,
    retryable,
  );
}
