// Who sent a request, as far as rate limits that count per sender can tell:
// the address of the TCP peer, unless that peer is one of the operator's
// trusted proxies (FLOWHOOK_TRUSTED_PROXIES), in which case X-Forwarded-For is
// read from the right, skipping trusted hops, to the first address a trusted
// proxy vouches for. Without trusted proxies the header is never read: anyone
// can write it. An IPv6 client is counted by its /64 prefix, the block one
// subscriber usually holds, so a sender cannot become a new sender per address.
import { BlockList, isIPv4, isIPv6 } from 'node:net';

export interface TrustedProxies {
  /** The entries as configured, for messages. */
  readonly entries: readonly string[];
  contains(address: string): boolean;
}

export const NO_TRUSTED_PROXIES: TrustedProxies = Object.freeze({ entries: [], contains: () => false });

/** `10.0.0.0/8, 192.0.2.7, fd00::/8`: addresses and CIDR blocks, IPv4 or IPv6; `name` is the variable for messages. */
export function parseTrustedProxies(raw: string, name: string): TrustedProxies {
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) return NO_TRUSTED_PROXIES;
  const list = new BlockList();
  for (const entry of entries) {
    const [address = '', prefix, ...rest] = entry.split('/');
    const family = isIPv4(address) ? 'ipv4' : isIPv6(address) ? 'ipv6' : undefined;
    const bits = prefix === undefined ? undefined : Number(prefix);
    const maxBits = family === 'ipv4' ? 32 : 128;
    if (!family || rest.length > 0 || (prefix !== undefined && (!/^\d{1,3}$/.test(prefix) || bits! > maxBits))) {
      throw new Error(`${name}: "${entry}" is not an IP address or CIDR block (e.g. 10.0.0.0/8, 192.0.2.7, fd00::/8)`);
    }
    if (bits === undefined) list.addAddress(address, family);
    else list.addSubnet(address, bits, family);
  }
  return { entries, contains: (address) => contains(list, address) };
}

/** The sender of a request: `remoteAddress` is the socket's peer, `forwardedFor` the X-Forwarded-For values in order. */
export function senderOf(
  remoteAddress: string | undefined,
  forwardedFor: string | string[] | undefined,
  trusted: TrustedProxies,
): string {
  let sender = plainAddress(remoteAddress ?? '');
  if (trusted.contains(sender)) {
    const hops = (Array.isArray(forwardedFor) ? forwardedFor.join(',') : (forwardedFor ?? ''))
      .split(',')
      .map((hop) => plainAddress(hop.trim()));
    // From the right: each hop was written by the one after it; the first one no trusted proxy is, is the client.
    for (let i = hops.length - 1; i >= 0; i--) {
      const hop = hops[i]!;
      if (!isIPv4(hop) && !isIPv6(hop)) break;
      sender = hop;
      if (!trusted.contains(hop)) break;
    }
  }
  return isIPv6(sender) ? ipv6Prefix64(sender) : sender;
}

/** `::ffff:192.0.2.7` is 192.0.2.7; a zone (`fe80::1%eth0`) is dropped. */
function plainAddress(address: string): string {
  const unzoned = address.replace(/%.*$/, '');
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(unzoned);
  return mapped ? mapped[1]! : unzoned;
}

function contains(list: BlockList, address: string): boolean {
  const plain = plainAddress(address);
  if (isIPv4(plain)) return list.check(plain, 'ipv4');
  return isIPv6(plain) && list.check(plain, 'ipv6');
}

/** `2001:db8:1:2:3:4:5:6` → `2001:db8:1:2::/64` (the first four groups, leading zeros dropped). */
export function ipv6Prefix64(address: string): string {
  const [head = '', tail] = address.toLowerCase().split('::');
  const left = head === '' ? [] : head.split(':');
  const right = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups =
    tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return `${groups
    .slice(0, 4)
    .map((group) => (/^[0-9a-f]{1,4}$/.test(group) ? String(parseInt(group, 16).toString(16)) : '0'))
    .join(':')}::/64`;
}
