// Resolves a host once, checks every address it resolves to against the
// egress policy, and hands the connection exactly those checked addresses (a
// `lookup` that never asks DNS again): a name that answers a public address to
// the check and a loopback address to the connect has no second answer to give.
import { promises as dns } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { checkEgress, type EgressPolicy } from '../../flow/egress-policy.ts';
import { OutboundFailed, OutboundRefused } from './outbound-errors.ts';

export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

/** URL host names keep IPv6 literals in brackets; sockets and the policy want them bare. */
export function bareHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1').toLowerCase();
}

export function portOf(url: URL): number {
  return Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
}

export async function resolveChecked(url: URL, policy: EgressPolicy): Promise<CheckedAddress[]> {
  const host = bareHost(url);
  const port = portOf(url);
  let addresses: CheckedAddress[];
  const literal = isIP(host);
  if (literal) {
    addresses = [{ address: host, family: literal as 4 | 6 }];
  } else {
    try {
      addresses = (await dns.lookup(host, { all: true, verbatim: true })).map((entry) => ({
        address: entry.address,
        family: entry.family as 4 | 6,
      }));
    } catch (error) {
      throw new OutboundFailed(`cannot resolve ${host} (${(error as NodeJS.ErrnoException).code ?? 'DNS error'})`);
    }
    if (addresses.length === 0) throw new OutboundFailed(`cannot resolve ${host} (no address)`);
  }
  for (const { address } of addresses) {
    const decision = checkEgress(policy, { host, port, address });
    if (!decision.allowed) throw new OutboundRefused(`${host}:${port}: ${decision.message}`, 'EgressRefused');
  }
  return addresses;
}

/** A `lookup` for http.request that answers only the checked addresses. */
export function pinnedLookup(addresses: CheckedAddress[]): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all)
      callback(
        null,
        addresses.map(({ address, family }) => ({ address, family })),
      );
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  }) as unknown as LookupFunction;
}
