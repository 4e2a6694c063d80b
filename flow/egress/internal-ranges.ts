// Internal addresses: the ranges refused unless FLOWHOOK_EGRESS_ALLOW opens
// them (loopback, private, link-local, cloud metadata, …), each with the
// category a refusal names. An IPv6 address that carries an IPv4 address
// (embedded-ipv4.ts) is judged by that IPv4 address.
//
// Decisions where the contract left room: IPv6 outside 2000::/3, 2001::/23
// (IETF protocol assignments, Teredo) and 64:ff9b:1::/48 (local-use NAT64) are
// treated as 'reserved'; 3fff::/20 is documentation, 2001:2::/48 benchmarking.
import { embeddedIPv4, type EmbeddedIPv4 } from './embedded-ipv4.ts';
import { inRange, parseIp, type Ip } from './ip-literal.ts';

export interface Category {
  /** Machine-friendly name, the decision's `rule`. */
  rule: string;
  /** What internalAddressKind returns. */
  kind: string;
  /** "a loopback address", for messages. */
  phrase: string;
}

function category(rule: string, kind: string = rule, phrase?: string): Category {
  return { rule, kind, phrase: phrase ?? `${/^[aeiou]/i.test(kind) ? 'an' : 'a'} ${kind} address` };
}

const LOOPBACK = category('loopback');
const UNSPECIFIED = category('unspecified');
const LINK_LOCAL = category('link-local');
const PRIVATE = category('private');
const MULTICAST = category('multicast');
const RESERVED = category('reserved');
const DOCUMENTATION = category('documentation');
const BENCHMARKING = category('benchmarking');
export const NOT_AN_IP = category('not-an-ip-address', 'not an IP address', 'not an IP address');

export interface Range {
  network: bigint;
  prefix: number;
  category: Category;
}

function range(cidr: string, what: Category): Range {
  const [address, prefix] = cidr.split('/') as [string, string];
  const ip = parseIp(address);
  if (!ip) throw new Error(`bad built-in range ${cidr}`);
  return { network: ip.value, prefix: Number(prefix), category: what };
}

// Every other metadata address we know lies in a range below (docs/explanation/security.md, the egress policy): AWS, GCP,
// Azure IMDS, DigitalOcean, OpenStack, Hetzner, Linode … 169.254.169.254 (link-local), Tencent
// 169.254.0.23, Scaleway 169.254.42.42, AWS ECS 169.254.170.2; Alibaba 100.100.100.200 (shared
// address space); Oracle 192.0.0.192 (192.0.0.0/24); AWS fd00:ec2::254, GCP fd20:ce::254, Oracle
// fd00:c1::a9fe:a9fe, Scaleway fd00:42::42 (fc00::/7); OpenStack fe80::a9fe:a9fe (link-local).
// Azure's WireServer (VM agent, extensions, their settings and certificates) sits in a public
// range, so it is named here and refused like an internal address.
const IPV4_METADATA: readonly Range[] = [
  range(
    '168.63.129.16/32',
    category('cloud-metadata', 'cloud metadata', "Azure's WireServer, a cloud metadata address"),
  ),
];

export const IPV4_INTERNAL: readonly Range[] = [
  ...IPV4_METADATA,
  range('0.0.0.0/8', UNSPECIFIED),
  range('10.0.0.0/8', PRIVATE),
  range(
    '100.64.0.0/10',
    category(
      'shared-address-space',
      'shared address space (100.64.0.0/10)',
      'in the shared address space (100.64.0.0/10)',
    ),
  ),
  range('127.0.0.0/8', LOOPBACK),
  range('169.254.0.0/16', LINK_LOCAL),
  range('172.16.0.0/12', PRIVATE),
  range('192.0.0.0/24', RESERVED),
  range('192.0.2.0/24', DOCUMENTATION),
  range('192.168.0.0/16', PRIVATE),
  range('198.18.0.0/15', BENCHMARKING),
  range('198.51.100.0/24', DOCUMENTATION),
  range('203.0.113.0/24', DOCUMENTATION),
  range('224.0.0.0/4', MULTICAST),
  range('240.0.0.0/4', RESERVED), // includes 255.255.255.255
];

export const IPV6_INTERNAL: readonly Range[] = [
  range('::/128', UNSPECIFIED),
  range('::1/128', LOOPBACK),
  range('100::/64', category('discard-only')),
  range('fe80::/10', LINK_LOCAL),
  range('fec0::/10', category('site-local')),
  range('fc00::/7', category('unique-local')), // includes fd00:ec2::254, AWS's metadata address
  range('ff00::/8', MULTICAST),
  range('2001:db8::/32', DOCUMENTATION),
  range('3fff::/20', DOCUMENTATION),
  range('2001:2::/48', BENCHMARKING),
  range('2001::/23', RESERVED), // IETF protocol assignments, including Teredo
  range('64:ff9b:1::/48', RESERVED), // local-use NAT64: the IPv4 address may sit anywhere
];
const GLOBAL_UNICAST = range('2000::/3', RESERVED);

export interface Classification {
  category: Category;
  /** Set when the category is that of the IPv4 address embedded in an IPv6 address. */
  embedded?: EmbeddedIPv4;
}

/** The internal category of an address, or undefined for a public one. */
export function classify(ip: Ip): Classification | undefined {
  if (ip.version === 4) {
    const found = IPV4_INTERNAL.find((r) => inRange(ip, r.network, r.prefix));
    return found && { category: found.category };
  }
  const found = IPV6_INTERNAL.find((r) => inRange(ip, r.network, r.prefix));
  if (found) return { category: found.category };
  const embedded = embeddedIPv4(ip);
  if (embedded) {
    const inner = classify({ version: 4, value: embedded.value });
    return inner && { category: inner.category, embedded };
  }
  if (!inRange(ip, GLOBAL_UNICAST.network, GLOBAL_UNICAST.prefix)) return { category: RESERVED };
  return undefined;
}

/** The category of an internal address ('loopback', 'unspecified', 'link-local', 'private', 'shared address space (100.64.0.0/10)', 'multicast', 'reserved', 'documentation', …), or undefined for a public address. Text that is not an IP literal is 'not an IP address'. */
export function internalAddressKind(address: string): string | undefined {
  const ip = parseIp(address, { brackets: true, zone: true });
  if (!ip) return NOT_AN_IP.kind;
  return classify(ip)?.category.kind;
}
