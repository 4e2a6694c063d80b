// Allow-list entries (FLOWHOOK_EGRESS_ALLOW, a company's egress list): parsed
// from text into rules, and written back canonically.
//
// Decisions where the contract left room:
// - A CIDR entry whose address has host bits set (10.20.5.0/16) is rejected,
//   naming the network it would have meant, rather than silently widened.
// - Zone ids are rejected in entries (targets may carry one, egress-matching.ts).
// - A trailing dot on a host name is ignored.
// - A wildcard may carry a port (`*.corp.example:8443`).
// - Host names whose last label is numeric (`127.1`, `10.0.0`) are rejected:
//   URL parsers read them as IPv4, so they could never match a host name.
// - Duplicate entries are dropped.
import { BITS, formatHostPort, formatIp, parseIp, parseNetwork, type Ip } from './ip-literal.ts';

/** One allow-list entry. */
export type EgressRule =
  /** DNS name, lower-case, matched exactly against the URL's host name; a leading "*." matches any subdomain (not the bare domain). */
  | { kind: 'host'; host: string }
  /** Host name (or "*." wildcard) or IP literal (canonical, IPv6 without brackets) plus port. */
  | { kind: 'hostPort'; host: string; port: number }
  /** Network in canonical `address/prefix` form; a bare IP literal is a /32 or /128. */
  | { kind: 'cidr'; cidr: string };

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

/** The rule an entry stands for, or why it stands for none. */
function parseItem(item: string): EgressRule | string {
  if (/\s/.test(item)) return 'it contains white space';
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(item))
    return 'it is a URL; give only the host name (and port), e.g. erp.internal or erp.internal:8443';
  if (item.includes('%')) return 'zone ids ("%eth0") are not allowed';
  if (item.startsWith('[')) {
    const match = /^\[([^\]]*)\](?::(.*))?$/.exec(item);
    const ip = match && parseIp(match[1]!);
    if (!match || !ip || ip.version !== 6)
      return 'expected an IPv6 address in brackets, optionally with a port, e.g. [fd00::1]:8080';
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
  if (/[\u0080-\uffff]/.test(rest)) return { error: 'give a non-ASCII host name in its xn-- (punycode) form' };
  const bad = /[^a-z0-9.-]/.exec(rest);
  if (bad) return { error: `${JSON.stringify(bad[0])} is not allowed in a host name (letters, digits, "-" and ".")` };
  if (rest.length > 253) return { error: 'the host name is longer than 253 characters' };
  const labels = rest.split('.');
  if (labels.some((label) => label === '')) return { error: 'the host name has an empty label' };
  if (labels.some((label) => label.length > 63))
    return { error: 'a label of the host name is longer than 63 characters' };
  if (labels.some((label) => label.startsWith('-') || label.endsWith('-')))
    return { error: 'a label of the host name starts or ends with "-"' };
  // URL parsers read a host whose last label is a number as IPv4 ("127.1" is 127.0.0.1).
  if (/^(?:[0-9]+|0x[0-9a-f]*)$/.test(labels[labels.length - 1]!))
    return { error: 'it looks like an IP address but is not a valid one' };
  return name;
}

function parseCidr(item: string): EgressRule | string {
  const slash = item.indexOf('/');
  const addressText = item.slice(0, slash);
  const prefixText = item.slice(slash + 1);
  const ip = parseIp(addressText);
  if (!ip) {
    if (typeof parseHostName(addressText.split(':')[0]!, true) === 'string')
      return 'paths are not allowed; give only the host name (and port)';
    return 'it is not a network; expected e.g. 10.20.0.0/16 or fd00::/8';
  }
  const bits = Number(BITS[ip.version]);
  if (!/^[0-9]{1,3}$/.test(prefixText) || Number(prefixText) > bits) {
    return `the prefix "/${prefixText}" is not a number from 0 to ${bits}`;
  }
  const prefix = Number(prefixText);
  const shift = BigInt(bits - prefix);
  const network: Ip = { version: ip.version, value: (ip.value >> shift) << shift };
  if (network.value !== ip.value)
    return `the address has host bits set; the /${prefix} network is ${formatIp(network)}/${prefix}`;
  return { kind: 'cidr', cidr: `${formatIp(network)}/${prefix}` };
}

function hostRule(ip: Ip): EgressRule {
  return { kind: 'cidr', cidr: `${formatIp(ip)}/${BITS[ip.version]}` };
}
