// Whether an allow-list rule matches a target: host rules by the URL's host
// name, host:port rules by host name or address and port, networks by the
// resolved address. An address matches in each form a rule may name it by
// (embedded-ipv4.ts). Zone ids are stripped from targets, and a trailing dot
// on a host name is ignored.
//
// A wildcard host:port entry (`*.corp.example:8443`) opens addresses like any
// host:port entry but never one of flowhook's own ports, which needs an exact
// host (or IP) and port (`exactHostPortOnly`).
import { ipForms } from './embedded-ipv4.ts';
import type { EgressRule } from './egress-entries.ts';
import { inRange, parseIp, parseNetwork, sameIp, type Ip } from './ip-literal.ts';

export interface EgressTarget {
  /** Host name as written in the URL (lower-case; IPv6 literals without brackets). */
  host: string;
  port: number;
  /** One resolved address the connection would use. */
  address: string;
}

/** A target prepared for matching. */
export interface Subject {
  /** Normalised host name; '' when the URL host is an IP literal. */
  name: string;
  port: number;
  /** Forms of the address and, when the URL host is an IP literal, of that too. */
  ips: Ip[];
  /** Forms of the address alone. */
  addressIps: Ip[];
}

/** Whether one rule matches a target (host rules by host name, host:port by host or address and port, networks by address). False when the address is not an IP literal. */
export function egressRuleMatches(rule: EgressRule, target: EgressTarget): boolean {
  const address = parseIp(target.address, { brackets: true, zone: true });
  return address !== undefined && ruleMatches(rule, subjectOf(target, address));
}

export function subjectOf(target: EgressTarget, address: Ip): Subject {
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

export function ruleMatches(rule: EgressRule, subject: Subject, exactHostPortOnly = false): boolean {
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
      return subject.addressIps.some(
        (candidate) => candidate.version === network.ip.version && inRange(candidate, network.ip.value, network.prefix),
      );
    }
  }
}

function normaliseHost(host: string): string {
  let h = host.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.endsWith('.')) h = h.slice(0, -1);
  return h;
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
