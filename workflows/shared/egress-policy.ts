// The egress policy: decides whether an outbound connection from a flow to one
// resolved address is allowed. Pure (no I/O, no Node built-ins), so the worker
// can call it for every address a host name resolves to, right before it
// connects.
//
// Internal addresses (loopback, private, link-local, cloud metadata, …) are
// refused unless FLOWHOOK_EGRESS_ALLOW opens them; flowhook's own ports are
// refused on every address unless a host:port entry names them; a company that
// narrowed its egress additionally needs every call on its own list.
//
// IP literals are parsed here into bigints (32 or 128 bits) rather than with
// node:net, so that every IPv6 spelling that carries an IPv4 address (mapped,
// compatible, SIIT, NAT64, 6to4) is judged by that IPv4 address, whatever its
// spelling. Anything that does not parse as an IP literal is refused.
//
// Decisions where the contract left room:
// - A CIDR entry whose address has host bits set (10.20.5.0/16) is rejected,
//   naming the network it would have meant, rather than silently widened.
// - Zone ids are stripped from target addresses but rejected in entries.
// - A trailing dot on a host name is ignored, on entries and targets alike.
// - A wildcard may carry a port (`*.corp.example:8443`); such an entry opens
//   addresses like any host:port entry but never opens one of flowhook's own
//   ports, which needs an exact host (or IP) and port.
// - Host names whose last label is numeric (`127.1`, `10.0.0`) are rejected:
//   URL parsers read them as IPv4, so they could never match a host name.
// - IPv6 outside 2000::/3, 2001::/23 (IETF protocol assignments, Teredo) and
//   64:ff9b:1::/48 (local-use NAT64) are treated as 'reserved'; 3fff::/20 is
//   documentation, 2001:2::/48 benchmarking.
// - Duplicate entries are dropped.

export const EGRESS_ALLOW_VARIABLE = 'FLOWHOOK_EGRESS_ALLOW';

/** One allow-list entry. */
export type EgressRule =
  /** DNS name, lower-case, matched exactly against the URL's host name; a leading "*." matches any subdomain (not the bare domain). */
  | { kind: 'host'; host: string }
  /** Host name (or "*." wildcard) or IP literal (canonical, IPv6 without brackets) plus port. */
  | { kind: 'hostPort'; host: string; port: number }
  /** Network in canonical `address/prefix` form; a bare IP literal is a /32 or /128. */
  | { kind: 'cidr'; cidr: string };

export interface EgressPolicy {
  /** From FLOWHOOK_EGRESS_ALLOW: opens internal addresses (and, with host:port entries, flowhook's own ports). */
  allow: EgressRule[];
  /** flowhook's own ports (engine, facade, Temporal, PostgreSQL, …) with a name for messages: refused on every address unless a hostPort rule names that exact host and port. */
  ownPorts: ReadonlyMap<number, string>;
  /** Set when the company narrowed its egress (`flowhook company egress …`): every call must also match one of these rules, public addresses included. */
  company?: { name: string; allow: EgressRule[] };
}

export interface EgressTarget {
  /** Host name as written in the URL (lower-case; IPv6 literals without brackets). */
  host: string;
  port: number;
  /** One resolved address the connection would use. */
  address: string;
}

export type EgressDecision = { allowed: true } | { allowed: false; rule: string; message: string };

// ---------------------------------------------------------------------------
// IP literals

interface Ip {
  readonly version: 4 | 6;
  readonly value: bigint;
}

const BITS = { 4: 32n, 6: 128n } as const;
const V4_MASK = 0xffff_ffffn;
const MAPPED_PREFIX = 0xffffn; // ::ffff:0:0/96, the top 96 bits

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

interface ParseIpOptions {
  /** Accept "[v6]". */
  brackets?: boolean;
  /** Accept and drop an IPv6 zone id ("fe80::1%eth0"). */
  zone?: boolean;
}

function parseIp(text: string, options: ParseIpOptions = {}): Ip | undefined {
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

function formatIPv4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((shift) => String((value >> shift) & 0xffn)).join('.');
}

/** RFC 5952 text: lower-case, no leading zeros, the longest run of two or more zero groups as "::"; IPv4-mapped in dotted form. */
function formatIPv6(value: bigint): string {
  if (value >> 32n === MAPPED_PREFIX) return `::ffff:${formatIPv4(value & V4_MASK)}`;
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  let bestStart = -1;
  let bestLength = 1;
  for (let start = 0; start < 8; ) {
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

function formatIp(ip: Ip): string {
  return ip.version === 4 ? formatIPv4(ip.value) : formatIPv6(ip.value);
}

/** `host:port`, with brackets around an IPv6 literal. */
function formatHostPort(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

interface EmbeddedIPv4 {
  value: bigint;
  /** "an IPv4-mapped IPv6 address", … for messages. */
  form: string;
}

/** The IPv4 address an IPv6 address carries, in every spelling that routes to (or stands for) that IPv4 address. */
function embeddedIPv4(ip: Ip): EmbeddedIPv4 | undefined {
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

// ---------------------------------------------------------------------------
// Internal address ranges

interface Category {
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
const NOT_AN_IP = category('not-an-ip-address', 'not an IP address', 'not an IP address');

interface Range {
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

// Every other metadata address we know lies in a range below (README, Egress policy): AWS, GCP,
// Azure IMDS, DigitalOcean, OpenStack, Hetzner, Linode … 169.254.169.254 (link-local), Tencent
// 169.254.0.23, Scaleway 169.254.42.42, AWS ECS 169.254.170.2; Alibaba 100.100.100.200 (shared
// address space); Oracle 192.0.0.192 (192.0.0.0/24); AWS fd00:ec2::254, GCP fd20:ce::254, Oracle
// fd00:c1::a9fe:a9fe, Scaleway fd00:42::42 (fc00::/7); OpenStack fe80::a9fe:a9fe (link-local).
// Azure's WireServer (VM agent, extensions, their settings and certificates) sits in a public
// range, so it is named here and refused like an internal address.
const IPV4_METADATA: readonly Range[] = [
  range('168.63.129.16/32', category('cloud-metadata', 'cloud metadata', "Azure's WireServer, a cloud metadata address")),
];

const IPV4_INTERNAL: readonly Range[] = [
  ...IPV4_METADATA,
  range('0.0.0.0/8', UNSPECIFIED),
  range('10.0.0.0/8', PRIVATE),
  range('100.64.0.0/10', category('shared-address-space', 'shared address space (100.64.0.0/10)', 'in the shared address space (100.64.0.0/10)')),
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

const IPV6_INTERNAL: readonly Range[] = [
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

function inRange(ip: Ip, network: bigint, prefix: number): boolean {
  const shift = BITS[ip.version] - BigInt(prefix);
  return ip.value >> shift === network >> shift;
}

interface Classification {
  category: Category;
  /** Set when the category is that of the IPv4 address embedded in an IPv6 address. */
  embedded?: EmbeddedIPv4;
}

function classify(ip: Ip): Classification | undefined {
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

// ---------------------------------------------------------------------------
// Parsing and formatting entries

function parsePort(text: string): number | string {
  if (!/^[0-9]{1,5}$/.test(text) || Number(text) < 1 || Number(text) > 65535) {
    return text === '' ? 'the port is missing after ":"' : `port "${text}" is not a number from 1 to 65535`;
  }
  return Number(text);
}

/** The lower-case host name without a trailing dot, or why it is not one. `*.` is allowed in front when `wildcard`. */
function parseHostName(text: string, wildcard: boolean): string | { error: string } {
  let name = text.toLowerCase();
  if (name.endsWith('.') && name !== '.') name = name.slice(0, -1);
  if (name === '') return { error: 'the host is empty' };
  if (name === '*') return { error: 'a bare "*" is not allowed; name the hosts or networks to open' };
  const isWildcard = name.startsWith('*.');
  const rest = isWildcard ? name.slice(2) : name;
  if (isWildcard && !wildcard) return { error: 'a wildcard is not allowed here' };
  if (rest.includes('*')) return { error: '"*" is only allowed as a leading "*." (e.g. *.corp.example)' };
  if (/[^\x00-\x7f]/.test(rest)) return { error: 'give a non-ASCII host name in its xn-- (punycode) form' };
  const bad = /[^a-z0-9.-]/.exec(rest);
  if (bad) return { error: `${JSON.stringify(bad[0])} is not allowed in a host name (letters, digits, "-" and ".")` };
  if (rest.length > 253) return { error: 'the host name is longer than 253 characters' };
  const labels = rest.split('.');
  if (labels.some((label) => label === '')) return { error: 'the host name has an empty label' };
  if (labels.some((label) => label.length > 63)) return { error: 'a label of the host name is longer than 63 characters' };
  if (labels.some((label) => label.startsWith('-') || label.endsWith('-'))) return { error: 'a label of the host name starts or ends with "-"' };
  // URL parsers read a host whose last label is a number as IPv4 ("127.1" is 127.0.0.1).
  if (/^(?:[0-9]+|0x[0-9a-f]*)$/.test(labels[labels.length - 1]!)) return { error: 'it looks like an IP address but is not a valid one' };
  return name;
}

function parseCidr(item: string): EgressRule | string {
  const slash = item.indexOf('/');
  const addressText = item.slice(0, slash);
  const prefixText = item.slice(slash + 1);
  const ip = parseIp(addressText);
  if (!ip) {
    if (typeof parseHostName(addressText.split(':')[0]!, true) === 'string') return 'paths are not allowed; give only the host name (and port)';
    return 'it is not a network; expected e.g. 10.20.0.0/16 or fd00::/8';
  }
  const bits = Number(BITS[ip.version]);
  if (!/^[0-9]{1,3}$/.test(prefixText) || Number(prefixText) > bits) {
    return `the prefix "/${prefixText}" is not a number from 0 to ${bits}`;
  }
  const prefix = Number(prefixText);
  const shift = BigInt(bits - prefix);
  const network: Ip = { version: ip.version, value: (ip.value >> shift) << shift };
  if (network.value !== ip.value) return `the address has host bits set; the /${prefix} network is ${formatIp(network)}/${prefix}`;
  return { kind: 'cidr', cidr: `${formatIp(network)}/${prefix}` };
}

function hostRule(ip: Ip): EgressRule {
  return { kind: 'cidr', cidr: `${formatIp(ip)}/${BITS[ip.version]}` };
}

function parseItem(item: string): EgressRule | string {
  if (/\s/.test(item)) return 'it contains white space';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(item)) return 'it is a URL; give only the host name (and port), e.g. erp.internal or erp.internal:8443';
  if (item.includes('%')) return 'zone ids ("%eth0") are not allowed';
  if (item.startsWith('[')) {
    const match = /^\[([^\]]*)\](?::(.*))?$/.exec(item);
    const ip = match && parseIp(match[1]!);
    if (!match || !ip || ip.version !== 6) return 'expected an IPv6 address in brackets, optionally with a port, e.g. [fd00::1]:8080';
    if (match[2] === undefined) return hostRule(ip);
    const port = parsePort(match[2]);
    return typeof port === 'string' ? port : { kind: 'hostPort', host: formatIp(ip), port };
  }
  if (item.includes('/')) return parseCidr(item);
  const colons = item.split(':').length - 1;
  if (colons >= 2) {
    const ip = parseIp(item);
    if (ip) return hostRule(ip);
    return 'it is not an IPv6 address (an IPv6 address with a port needs brackets, e.g. [fd00::1]:8080)';
  }
  const [hostText, portText] = item.split(':') as [string, string | undefined];
  const ip = parseIp(hostText);
  if (portText === undefined) {
    if (ip) return hostRule(ip);
    const host = parseHostName(hostText, true);
    return typeof host === 'string' ? { kind: 'host', host } : host.error;
  }
  const port = parsePort(portText);
  if (typeof port === 'string') return port;
  if (ip) return { kind: 'hostPort', host: formatIp(ip), port };
  const host = parseHostName(hostText, true);
  return typeof host === 'string' ? { kind: 'hostPort', host, port } : host.error;
}

/** Parses a comma-separated list such as `erp.internal,10.20.0.0/16,127.0.0.1:8080,[::1]:9000,*.corp.example`.
 *  Blank items are ignored. Throws an Error whose message names `source` (e.g. "FLOWHOOK_EGRESS_ALLOW") and the bad item. */
export function parseEgressRules(raw: string, source: string): EgressRule[] {
  const rules: EgressRule[] = [];
  const seen = new Set<string>();
  for (const part of raw.split(',')) {
    const item = part.trim();
    if (item === '') continue;
    const rule = parseItem(item);
    if (typeof rule === 'string') {
      throw new Error(`${source}: ${JSON.stringify(item)} is not a valid entry: ${rule}`);
    }
    const text = formatEgressRule(rule);
    if (seen.has(text)) continue;
    seen.add(text);
    rules.push(rule);
  }
  return rules;
}

/** Canonical text of a rule, for listing it back to a person (e.g. `10.20.0.0/16`, `[::1]:9000`). */
export function formatEgressRule(rule: EgressRule): string {
  switch (rule.kind) {
    case 'host':
      return rule.host;
    case 'hostPort': {
      const ip = parseIp(rule.host, { brackets: true });
      return formatHostPort(ip ? formatIp(ip) : rule.host, rule.port);
    }
    case 'cidr': {
      const network = parseNetwork(rule.cidr);
      if (!network) return rule.cidr;
      const address = formatIp(network.ip);
      return BigInt(network.prefix) === BITS[network.ip.version] ? address : `${address}/${network.prefix}`;
    }
  }
}

// ---------------------------------------------------------------------------
// Matching

function parseNetwork(cidr: string): { ip: Ip; prefix: number } | undefined {
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

/** An address in every form a rule may name it by: itself, its embedded IPv4 address, and that address IPv4-mapped. */
function ipForms(ip: Ip): Ip[] {
  const v4 = ip.version === 4 ? ip.value : embeddedIPv4(ip)?.value;
  if (v4 === undefined) return [ip];
  return [ip, { version: 4, value: v4 }, { version: 6, value: (MAPPED_PREFIX << 32n) | v4 }];
}

/** A target prepared for matching. */
interface Subject {
  /** Normalised host name; '' when the URL host is an IP literal. */
  name: string;
  port: number;
  /** Forms of the address and, when the URL host is an IP literal, of that too. */
  ips: Ip[];
  /** Forms of the address alone. */
  addressIps: Ip[];
}

function normaliseHost(host: string): string {
  let h = host.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  return h;
}

function subjectOf(target: EgressTarget, address: Ip): Subject {
  const host = normaliseHost(target.host);
  const hostIp = parseIp(host, { zone: true });
  const addressIps = ipForms(address);
  return {
    name: hostIp ? '' : host,
    port: target.port,
    ips: hostIp ? [...addressIps, ...ipForms(hostIp)] : addressIps,
    addressIps,
  };
}

function nameMatches(ruleHost: string, name: string): boolean {
  if (name === '') return false;
  const pattern = normaliseHost(ruleHost);
  if (pattern.startsWith('*.')) {
    const suffix = pattern.slice(1);
    return name.length > suffix.length && name.endsWith(suffix);
  }
  return name === pattern;
}

function sameIp(a: Ip, b: Ip): boolean {
  return a.version === b.version && a.value === b.value;
}

function ruleMatches(rule: EgressRule, subject: Subject, exactHostPortOnly = false): boolean {
  switch (rule.kind) {
    case 'host':
      return !exactHostPortOnly && nameMatches(rule.host, subject.name);
    case 'hostPort': {
      if (rule.port !== subject.port) return false;
      const ip = parseIp(rule.host, { brackets: true });
      if (ip) return subject.ips.some((candidate) => sameIp(candidate, ip));
      if (exactHostPortOnly && normaliseHost(rule.host).startsWith('*.')) return false;
      return nameMatches(rule.host, subject.name);
    }
    case 'cidr': {
      if (exactHostPortOnly) return false;
      const network = parseNetwork(rule.cidr);
      if (!network) return false;
      return subject.addressIps.some((candidate) => candidate.version === network.ip.version && inRange(candidate, network.ip.value, network.prefix));
    }
  }
}

/** Whether one rule matches a target (host rules by host name, host:port by host or address and port, networks by address). False when the address is not an IP literal. */
export function egressRuleMatches(rule: EgressRule, target: EgressTarget): boolean {
  const address = parseIp(target.address, { brackets: true, zone: true });
  return address !== undefined && ruleMatches(rule, subjectOf(target, address));
}

// ---------------------------------------------------------------------------
// The decision

function refuse(rule: string, message: string): EgressDecision {
  return { allowed: false, rule, message };
}

export function checkEgress(policy: EgressPolicy, target: EgressTarget): EgressDecision {
  const address = parseIp(target.address, { brackets: true, zone: true });
  if (!address) {
    const shown = target.address.length > 100 ? `${target.address.slice(0, 100)}…` : target.address;
    return refuse(NOT_AN_IP.rule, `refused by the egress policy: ${JSON.stringify(shown)} is not an IP address`);
  }
  const subject = subjectOf(target, address);
  const addressText = target.address.startsWith('[') ? target.address.slice(1, -1) : target.address;
  // What a narrow FLOWHOOK_EGRESS_ALLOW entry for this target looks like.
  const example = formatHostPort(subject.name || formatIp(address), target.port);

  if (!Number.isInteger(target.port) || target.port < 1 || target.port > 65535) {
    return refuse('invalid-port', `refused by the egress policy: port ${String(target.port)} is not a port from 1 to 65535`);
  }

  const ownPort = policy.ownPorts.get(target.port);
  if (ownPort !== undefined && !policy.allow.some((rule) => ruleMatches(rule, subject, true))) {
    return refuse(
      'own-port',
      `refused by the egress policy: port ${target.port} is flowhook's own ${ownPort} port; ` +
        `only a host:port entry naming it opens it, e.g. ${EGRESS_ALLOW_VARIABLE}=${example}`,
    );
  }

  const internal = classify(address);
  if (internal && !policy.allow.some((rule) => ruleMatches(rule, subject))) {
    const { category: what, embedded } = internal;
    const described = embedded ? `${addressText} (IPv4 ${formatIPv4(embedded.value)} in ${embedded.form})` : addressText;
    const finding = subject.name ? `${subject.name} resolves to ${described}, which is ${what.phrase}` : `${described} is ${what.phrase}`;
    return refuse(
      what.rule,
      `refused by the egress policy: ${finding} (open it with ${EGRESS_ALLOW_VARIABLE}, e.g. ${EGRESS_ALLOW_VARIABLE}=${example})`,
    );
  }

  const company = policy.company;
  if (company && !company.allow.some((rule) => ruleMatches(rule, subject))) {
    const shown = subject.name ? `${formatHostPort(subject.name, target.port)} (${addressText})` : formatHostPort(addressText, target.port);
    const name = JSON.stringify(company.name);
    const argument = /^[A-Za-z0-9._-]+$/.test(company.name) ? company.name : name;
    return refuse(
      'company-egress',
      `refused by company ${name} egress list: ${shown} is not on it (change it with flowhook company egress set ${argument} …)`,
    );
  }

  return { allowed: true };
}
