// The egress policy: decides whether an outbound connection from a flow to one
// resolved address is allowed. Pure (no I/O, no Node built-ins), so the worker
// can call it for every address a host name resolves to, right before it
// connects.
//
// Internal addresses (loopback, private, link-local, cloud metadata, …) are
// refused unless FLOWHOOK_EGRESS_ALLOW opens them; flowhook's own ports are
// refused on every address unless a host:port entry names them; a company that
// narrowed its egress additionally needs every call on its own list. Anything
// that does not parse as an IP literal is refused.
//
// The parts, one idea each, in egress/: IP literals (ip-literal.ts), the IPv4
// address an IPv6 address carries (embedded-ipv4.ts), the internal ranges
// (internal-ranges.ts), allow-list entries (egress-entries.ts) and matching a
// rule against a target (egress-matching.ts). This module is the decision, and
// the surface the rest of flowhook imports.
import type { EgressRule } from './egress/egress-entries.ts';
import { ruleMatches, subjectOf, type EgressTarget } from './egress/egress-matching.ts';
import { classify, NOT_AN_IP } from './egress/internal-ranges.ts';
import { formatHostPort, formatIp, formatIPv4, parseIp } from './egress/ip-literal.ts';

export { formatEgressRule, parseEgressRules, type EgressRule } from './egress/egress-entries.ts';
export { egressRuleMatches, type EgressTarget } from './egress/egress-matching.ts';
export { internalAddressKind } from './egress/internal-ranges.ts';

export const EGRESS_ALLOW_VARIABLE = 'FLOWHOOK_EGRESS_ALLOW';

export interface EgressPolicy {
  /** From FLOWHOOK_EGRESS_ALLOW: opens internal addresses (and, with host:port entries, flowhook's own ports). */
  allow: EgressRule[];
  /** flowhook's own ports (engine, facade, Temporal, PostgreSQL, …) with a name for messages: refused on every address unless a hostPort rule names that exact host and port. */
  ownPorts: ReadonlyMap<number, string>;
  /** Set when the company narrowed its egress (`flowhook company egress …`): every call must also match one of these rules, public addresses included. */
  company?: { name: string; allow: EgressRule[] };
}

export type EgressDecision = { allowed: true } | { allowed: false; rule: string; message: string };

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
    return refuse(
      'invalid-port',
      `refused by the egress policy: port ${String(target.port)} is not a port from 1 to 65535`,
    );
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
    const described = embedded
      ? `${addressText} (IPv4 ${formatIPv4(embedded.value)} in ${embedded.form})`
      : addressText;
    const finding = subject.name
      ? `${subject.name} resolves to ${described}, which is ${what.phrase}`
      : `${described} is ${what.phrase}`;
    return refuse(
      what.rule,
      `refused by the egress policy: ${finding} (open it with ${EGRESS_ALLOW_VARIABLE}, e.g. ${EGRESS_ALLOW_VARIABLE}=${example})`,
    );
  }

  const company = policy.company;
  if (company && !company.allow.some((rule) => ruleMatches(rule, subject))) {
    const shown = subject.name
      ? `${formatHostPort(subject.name, target.port)} (${addressText})`
      : formatHostPort(addressText, target.port);
    const name = JSON.stringify(company.name);
    const argument = /^[A-Za-z0-9._-]+$/.test(company.name) ? company.name : name;
    return refuse(
      'company-egress',
      `refused by company ${name} egress list: ${shown} is not on it (change it with flowhook company egress set ${argument} …)`,
    );
  }

  return { allowed: true };
}
