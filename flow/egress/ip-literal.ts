// IP literals as numbers: parsed into bigints (32 or 128 bits) here rather than
// with node:net, which the workflow sandbox does not have, so that every
// spelling of one address — leading zeros in IPv6 groups, upper or lower case,
// "::" anywhere it may stand, a dotted IPv4 tail — is the same number. Written
// back as RFC 5952 text. IPv4 parts with leading zeros are refused ("010" is
// octal to some parsers and decimal to others).

export interface Ip {
  readonly version: 4 | 6;
  readonly value: bigint;
}

export const BITS = { 4: 32n, 6: 128n } as const;
export const V4_MASK = 0xffff_ffffn;
/** ::ffff:0:0/96, the top 96 bits of an IPv4-mapped IPv6 address. */
export const MAPPED_PREFIX = 0xffffn;

export interface ParseIpOptions {
  /** Accept "[v6]". */
  brackets?: boolean;
  /** Accept and drop an IPv6 zone id ("fe80::1%eth0"). */
  zone?: boolean;
}

export function parseIp(text: string, options: ParseIpOptions = {}): Ip | undefined {
  let inner = text;
  const bracketed = inner.startsWith('[') && inner.endsWith(']');
  if (bracketed) {
    if (!options.brackets) return undefined;
    inner = inner.slice(1, -1);
  }
  if (!bracketed) {
    const v4 = parseIPv4(inner);
    if (v4 !== undefined) return { version: 4, value: v4 };
  }
  const percent = inner.indexOf('%');
  if (percent !== -1) {
    if (!options.zone || !/^[0-9a-z._~-]+$/i.test(inner.slice(percent + 1))) return undefined;
    inner = inner.slice(0, percent);
  }
  const v6 = parseIPv6(inner);
  return v6 === undefined ? undefined : { version: 6, value: v6 };
}

function parseIPv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    // No leading zeros: "010" is octal to some parsers and decimal to others.
    if (!/^(?:0|[1-9][0-9]{0,2})$/.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = (value << 8n) | BigInt(octet);
  }
  return value;
}

/** 16-bit groups of one side of "::", the last piece optionally a dotted IPv4 (two groups). */
function ipv6Groups(pieces: string[], ipv4Last: boolean): number[] | undefined {
  const groups: number[] = [];
  for (const [index, piece] of pieces.entries()) {
    if (ipv4Last && index === pieces.length - 1 && piece.includes('.')) {
      const v4 = parseIPv4(piece);
      if (v4 === undefined) return undefined;
      groups.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
    } else if (/^[0-9a-f]{1,4}$/i.test(piece)) {
      groups.push(Number.parseInt(piece, 16));
    } else {
      return undefined;
    }
  }
  return groups;
}

function parseIPv6(text: string): bigint | undefined {
  if (!/^[0-9a-f:.]+$/i.test(text)) return undefined;
  const gap = text.indexOf('::');
  if (gap !== text.lastIndexOf('::')) return undefined;
  const compressed = gap !== -1;
  const headText = compressed ? text.slice(0, gap) : text;
  const tailText = compressed ? text.slice(gap + 2) : '';
  const headPieces = headText === '' ? [] : headText.split(':');
  const tailPieces = tailText === '' ? [] : tailText.split(':');
  const head = ipv6Groups(headPieces, !compressed);
  const tail = ipv6Groups(tailPieces, true);
  if (!head || !tail) return undefined;
  if (compressed ? head.length + tail.length > 7 : head.length !== 8) return undefined;
  const groups = [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
  return groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n);
}

export function formatIp(ip: Ip): string {
  return ip.version === 4 ? formatIPv4(ip.value) : formatIPv6(ip.value);
}

export function formatIPv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

/** RFC 5952 text: lower-case, no leading zeros, the longest run of two or more zero groups as "::"; IPv4-mapped in dotted form. */
function formatIPv6(value: bigint): string {
  if (value >> 32n === MAPPED_PREFIX) return `::ffff:${formatIPv4(value & V4_MASK)}`;
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8;) {
    let end = start;
    while (end < 8 && groups[end] === 0) end++;
    if (end - start > bestLength) {
      bestStart = start;
      bestLength = end - start;
    }
    start = end === start ? start + 1 : end;
  }
  const hex = groups.map((group) => group.toString(16));
  if (bestStart === -1) return hex.join(':');
  return `${hex.slice(0, bestStart).join(':')}::${hex.slice(bestStart + bestLength).join(':')}`;
}

/** `host:port`, with brackets around an IPv6 literal. */
export function formatHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

export function sameIp(a: Ip, b: Ip): boolean {
  return a.version === b.version && a.value === b.value;
}

/** Whether `ip` lies in the network `network/prefix` of its own version. */
export function inRange(ip: Ip, network: bigint, prefix: number): boolean {
  const shift = BITS[ip.version] - BigInt(prefix);
  return ip.value >> shift === network >> shift;
}

/** `address/prefix` (or a bare address: the whole address) as the network it names; undefined when it is not one. */
export function parseNetwork(cidr: string): { ip: Ip; prefix: number } | undefined {
  const [addressText, prefixText, extra] = cidr.split('/');
  if (addressText === undefined || extra !== undefined) return undefined;
  const ip = parseIp(addressText, { brackets: true });
  if (!ip) return undefined;
  const bits = Number(BITS[ip.version]);
  const prefix = prefixText === undefined ? bits : Number(prefixText);
  if (prefixText !== undefined && !/^[0-9]{1,3}$/.test(prefixText)) return undefined;
  if (prefix > bits) return undefined;
  return { ip, prefix };
}
