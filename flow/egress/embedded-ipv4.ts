// IPv6 addresses that carry an IPv4 address: IPv4-mapped (::ffff:0:0/96),
// IPv4-translated (SIIT, ::ffff:0:0:0/96), NAT64 (64:ff9b::/96),
// IPv4-compatible (::/96 but :: and ::1) and 6to4 (2002::/16, the IPv4 address
// in bits 16..47). Each routes to (or stands for) that IPv4 address, so the
// egress policy judges it by the IPv4 address, and a rule naming the IPv4
// address names it too. Teredo (2001::/32) is not unwrapped: 2001::/23 is
// refused whole (internal-ranges.ts).
import { MAPPED_PREFIX, V4_MASK, type Ip } from './ip-literal.ts';

export interface EmbeddedIPv4 {
  value: bigint;
  /** "an IPv4-mapped IPv6 address", … for messages. */
  form: string;
}

/** The IPv4 address an IPv6 address carries, in every spelling that routes to (or stands for) that IPv4 address. */
export function embeddedIPv4(ip: Ip): EmbeddedIPv4 | undefined {
  if (ip.version !== 6) return undefined;
  const v = ip.value;
  const low = v & V4_MASK;
  const top96 = v >> 32n;
  if (top96 === MAPPED_PREFIX) return { value: low, form: 'an IPv4-mapped IPv6 address' };
  if (top96 === 0xffff_0000n) return { value: low, form: 'an IPv4-translated IPv6 address (::ffff:0:0:0/96)' };
  if (top96 === 0x0064_ff9b_0000_0000_0000_0000n) return { value: low, form: 'a NAT64 IPv6 address (64:ff9b::/96)' };
  // ::/96 minus :: and ::1, which are IPv6's own unspecified and loopback addresses.
  if (top96 === 0n && v > 1n) return { value: low, form: 'an IPv4-compatible IPv6 address' };
  if (v >> 112n === 0x2002n) return { value: (v >> 80n) & V4_MASK, form: 'a 6to4 IPv6 address (2002::/16)' };
  return undefined;
}

/** An address in every form a rule may name it by: itself, its embedded IPv4 address, and that address IPv4-mapped. */
export function ipForms(ip: Ip): Ip[] {
  const v4 = ip.version === 4 ? ip.value : embeddedIPv4(ip)?.value;
  if (v4 === undefined) return [ip];
  return [ip, { version: 4, value: v4 }, { version: 6, value: (MAPPED_PREFIX << 32n) | v4 }];
}
