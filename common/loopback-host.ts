// Whether a host names this machine only: `localhost`, 127.0.0.0/8 or ::1 (an IPv4-mapped IPv6
// address such as ::ffff:127.0.0.1 matches the IPv4 rule). 0.0.0.0 and :: mean "every
// interface", and any other name may resolve to anything: not loopback.
import { BlockList, isIP } from 'node:net';

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

export function isLoopbackHost(host: string): boolean {
  const bare = host
    .trim()
    .replace(/^\[(.*)\]$/, '$1')
    .toLowerCase();
  if (bare === 'localhost') return true;
  const family = isIP(bare);
  return family !== 0 && LOOPBACK.check(bare, family === 4 ? 'ipv4' : 'ipv6');
}
