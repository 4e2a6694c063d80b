// The engine's side of the egress policy, for the alert messages it sends: a
// host is resolved once, every address it resolves to is checked against the
// policy (flow/egress-policy.ts, the same decision the worker's guarded client
// makes, with FLOWHOOK_EGRESS_ALLOW, flowhook's own ports and the company's
// own list), and the connection is made to exactly those checked addresses.
// The worker's guarded HTTP client (workflows/outbound/guarded-http.ts) follows
// redirects and reads bodies for flows; an alert needs neither, so this stays
// a thin guard instead of a copy of that client.
import { promises as dns } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { checkEgress, type EgressPolicy } from '../../../flow/egress-policy.ts';
import { NotifyFailed } from './notify-errors.ts';

export interface CheckedAddress {
  address: string;
  family: 4 | 6;
}

/** Resolves `host` and checks each address; refuses (not retryable) what the policy refuses. */
export async function checkedAddresses(host: string, port: number, policy: EgressPolicy): Promise<CheckedAddress[]> {
  const bare = host.replace(/^\[(.*)\]$/, '$1').toLowerCase();
  let addresses: CheckedAddress[];
  const literal = isIP(bare);
  if (literal) addresses = [{ address: bare, family: literal as 4 | 6 }];
  else {
    try {
      addresses = (await dns.lookup(bare, { all: true, verbatim: true })).map((entry) => ({
        address: entry.address,
        family: entry.family as 4 | 6,
      }));
    } catch (error) {
      throw new NotifyFailed(`cannot resolve ${bare} (${(error as NodeJS.ErrnoException).code ?? 'DNS error'})`, true);
    }
  }
  if (addresses.length === 0) throw new NotifyFailed(`cannot resolve ${bare} (no address)`, true);
  for (const { address } of addresses) {
    const decision = checkEgress(policy, { host: bare, port, address });
    if (!decision.allowed) throw new NotifyFailed(`${bare}:${port}: ${decision.message}`, false);
  }
  return addresses;
}

/** A `lookup` that answers only the checked addresses: a second DNS answer cannot differ from the checked one. */
export function pinnedLookup(addresses: CheckedAddress[]): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (options?.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  }) as unknown as LookupFunction;
}
