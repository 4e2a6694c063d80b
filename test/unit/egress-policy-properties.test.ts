// Properties of the egress policy, over generated addresses and entries rather
// than a list of examples (egress-policy.test.ts has those): every IPv6
// spelling of an internal IPv4 address is refused for that address's reason,
// and addresses and allow-list entries survive formatting and parsing.
import test from 'ava';
import fc from 'fast-check';
import {
  checkEgress,
  egressRuleMatches,
  formatEgressRule,
  internalAddressKind,
  parseEgressRules,
  type EgressPolicy,
} from '../../flow/egress-policy.ts';
import { IPV4_INTERNAL } from '../../flow/egress/internal-ranges.ts';
import { formatIp, parseIp } from '../../flow/egress/ip-literal.ts';

const DEFAULT_POLICY: EgressPolicy = { allow: [], ownPorts: new Map() };
const V4_MASK = 0xffff_ffffn;

const bits = (n: number) => fc.bigInt({ min: 0n, max: (1n << BigInt(n)) - 1n });

/** An IPv6 address, often with runs of zero groups (so "::" has somewhere to stand). */
const ipv6Value = fc
  .array(fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 0xffff })), { minLength: 8, maxLength: 8 })
  .map((groups) => groups.reduce((value, group) => (value << 16n) | BigInt(group), 0n));

/** A host anywhere in one of the internal IPv4 ranges. */
const internalIPv4 = fc
  .constantFrom(...IPV4_INTERNAL)
  .chain((range) => bits(32 - range.prefix).map((host) => range.network | host));

const dotted = (v4: bigint) => [24n, 16n, 8n, 0n].map((shift) => String((v4 >> shift) & 0xffn)).join('.');

/** The IPv6 forms that carry an IPv4 address, as 128-bit values (the rest of the bits as given). */
const CARRIERS: Record<string, (v4: bigint, rest: bigint) => bigint> = {
  'IPv4-mapped (::ffff:0:0/96)': (v4) => (0xffffn << 32n) | v4,
  'IPv4-translated (::ffff:0:0:0/96)': (v4) => (0xffff_0000n << 32n) | v4,
  'NAT64 (64:ff9b::/96)': (v4) => (0x0064_ff9bn << 96n) | v4,
  'IPv4-compatible (::/96)': (v4) => v4,
  '6to4 (2002::/16)': (v4, rest) => (0x2002n << 112n) | (v4 << 80n) | (rest & ((1n << 80n) - 1n)),
};

interface Spelling {
  dottedTail: boolean;
  /** Which run of zero groups "::" stands for, if any (modulo the runs there are, plus one for none). */
  compression: number;
  /** Extra leading zeros per group. */
  padding: number[];
  /** Upper case per hex digit. */
  upper: boolean[];
  brackets: boolean;
  zone?: string;
}

const spellingArbitrary: fc.Arbitrary<Spelling> = fc.record(
  {
    dottedTail: fc.boolean(),
    compression: fc.nat(),
    padding: fc.array(fc.nat({ max: 3 }), { minLength: 8, maxLength: 8 }),
    upper: fc.array(fc.boolean(), { minLength: 32, maxLength: 32 }),
    brackets: fc.boolean(),
    zone: fc.constantFrom('eth0', '1', 'en0.5'),
  },
  { requiredKeys: ['dottedTail', 'compression', 'padding', 'upper', 'brackets'] },
);

/** One of the many texts of a 128-bit address: leading zeros, either case, "::" for any run of zero groups, a dotted IPv4 tail. */
function spell(value: bigint, spelling: Spelling, { zone = true } = {}): string {
  const groups = Array.from({ length: 8 }, (_, i) => Number((value >> BigInt(112 - 16 * i)) & 0xffffn));
  const hexCount = spelling.dottedTail ? 6 : 8;
  let digit = 0;
  const pieces = groups.slice(0, hexCount).map((group, i) => {
    const hex = group.toString(16);
    const padded = '0'.repeat(Math.min(spelling.padding[i]!, 4 - hex.length)) + hex;
    return [...padded].map((c) => (spelling.upper[digit++ % 32] ? c.toUpperCase() : c)).join('');
  });
  if (spelling.dottedTail) pieces.push(dotted(value & V4_MASK));
  const runs: [number, number][] = [];
  for (let start = 0; start < hexCount; start++)
    for (let end = start + 1; end <= hexCount && groups[end - 1] === 0; end++) runs.push([start, end]);
  const choice = spelling.compression % (runs.length + 1);
  let text = pieces.join(':');
  if (choice < runs.length) {
    const [start, end] = runs[choice]!;
    text = `${pieces.slice(0, start).join(':')}::${pieces.slice(end).join(':')}`;
  }
  if (zone && spelling.zone) text = `${text}%${spelling.zone}`;
  return spelling.brackets ? `[${text}]` : text;
}

const resolvedTo = (address: string) => ({ host: 'service.example', port: 443, address });

for (const [form, carry] of Object.entries(CARRIERS)) {
  test(`every spelling of an internal IPv4 address as ${form} is refused, for that address's reason`, (t) => {
    fc.assert(
      fc.property(internalIPv4, bits(80), spellingArbitrary, (v4, rest, spelling) => {
        const value = carry(v4, rest);
        // ::0.0.0.0 and ::0.0.0.1 are IPv6's own :: and ::1: refused too, as those.
        fc.pre(value > 1n);
        const address = spell(value, spelling);
        const decision = checkEgress(DEFAULT_POLICY, resolvedTo(address));
        const alone = checkEgress(DEFAULT_POLICY, resolvedTo(dotted(v4)));
        t.false(decision.allowed, address);
        t.is(!decision.allowed && decision.rule, !alone.allowed && alone.rule, address);
        t.is(internalAddressKind(address), internalAddressKind(dotted(v4)), address);
      }),
    );
  });
}

test('every spelling of an internal IPv4 address is opened by an entry naming the IPv4 address, and by no other', (t) => {
  fc.assert(
    fc.property(
      internalIPv4,
      fc.constantFrom(...Object.values(CARRIERS)),
      bits(80),
      spellingArbitrary,
      (v4, carry, rest, spelling) => {
        const value = carry(v4, rest);
        fc.pre(value > 1n);
        const address = spell(value, spelling);
        t.true(
          checkEgress({ ...DEFAULT_POLICY, allow: parseEgressRules(dotted(v4), 'test') }, resolvedTo(address)).allowed,
          address,
        );
        t.false(
          checkEgress({ ...DEFAULT_POLICY, allow: parseEgressRules(dotted(v4 ^ 1n), 'test') }, resolvedTo(address))
            .allowed,
          address,
        );
      },
    ),
  );
});

test('Teredo addresses (2001::/32) are refused whatever IPv4 addresses they carry', (t) => {
  fc.assert(
    fc.property(internalIPv4, bits(32), bits(32), spellingArbitrary, (client, server, flagsAndPort, spelling) => {
      const value = (0x2001_0000n << 96n) | (server << 64n) | (flagsAndPort << 32n) | (client ^ V4_MASK);
      const decision = checkEgress(DEFAULT_POLICY, resolvedTo(spell(value, spelling)));
      t.false(decision.allowed);
      t.is(!decision.allowed && decision.rule, 'reserved');
    }),
  );
});

test('an IPv6 address parses to the same value in every spelling and is written back as RFC 5952 text, as URL parsers write it', (t) => {
  fc.assert(
    fc.property(ipv6Value, spellingArbitrary, (value, spelling) => {
      const parsed = parseIp(spell(value, spelling), { brackets: true, zone: true });
      t.deepEqual(parsed, { version: 6, value });
      const text = formatIp(parsed!);
      t.deepEqual(parseIp(text), parsed);
      // WHATWG writes IPv4-mapped addresses in hex (::ffff:7f00:1); RFC 5952 §5 and we, dotted.
      if (value >> 32n === 0xffffn) t.is(text, `::ffff:${dotted(value & V4_MASK)}`);
      else
        t.is(
          `[${text}]`,
          new URL(`http://${spell(value, { ...spelling, brackets: true }, { zone: false })}/`).hostname,
        );
    }),
  );
});

test('an IPv4 address round-trips through formatting and parsing, as URL parsers write it', (t) => {
  fc.assert(
    fc.property(bits(32), (value) => {
      const text = dotted(value);
      t.deepEqual(parseIp(text), { version: 4, value });
      t.is(formatIp({ version: 4, value }), text);
      t.is(new URL(`http://${text}/`).hostname, text);
    }),
  );
});

// --- allow-list entries -------------------------------------------------------

const label = fc.stringMatching(/^[a-z0-9](?:[a-z0-9-]{0,8}[a-z0-9])?$/);
/** The last label is not numeric: URL parsers would read the name as IPv4. */
const lastLabel = fc.stringMatching(/^[a-z](?:[a-z0-9-]{0,8}[a-z0-9])?$/);
const hostName = fc
  .record({
    labels: fc.array(label, { maxLength: 3 }),
    last: lastLabel,
    wildcard: fc.boolean(),
    upper: fc.boolean(),
    trailingDot: fc.boolean(),
  })
  .map(({ labels, last, wildcard, upper, trailingDot }) => {
    const name = `${wildcard ? '*.' : ''}${[...labels, last].join('.')}${trailingDot ? '.' : ''}`;
    return upper ? name.toUpperCase() : name;
  });
const port = fc.integer({ min: 1, max: 65535 });
const ipv6Entry = fc
  .tuple(ipv6Value, spellingArbitrary)
  .map(([value, spelling]) => spell(value, { ...spelling, brackets: false }, { zone: false }));
const network = fc.oneof(
  fc
    .integer({ min: 0, max: 32 })
    .chain((prefix) =>
      bits(32).map((value) => `${dotted((value >> BigInt(32 - prefix)) << BigInt(32 - prefix))}/${prefix}`),
    ),
  fc
    .tuple(fc.integer({ min: 0, max: 128 }), ipv6Value, spellingArbitrary)
    .map(
      ([prefix, value, spelling]) =>
        `${spell((value >> BigInt(128 - prefix)) << BigInt(128 - prefix), { ...spelling, brackets: false }, { zone: false })}/${prefix}`,
    ),
);
const entry = fc.oneof(
  hostName,
  fc.tuple(hostName, port).map(([host, p]) => `${host}:${p}`),
  bits(32).map(dotted),
  fc.tuple(bits(32), port).map(([value, p]) => `${dotted(value)}:${p}`),
  ipv6Entry,
  ipv6Entry.map((address) => `[${address}]`),
  fc.tuple(ipv6Entry, port).map(([address, p]) => `[${address}]:${p}`),
  network,
);

test('an entry written back canonically parses to the same rule, and its canonical text is stable', (t) => {
  fc.assert(
    fc.property(entry, (text) => {
      const rules = parseEgressRules(text, 'test');
      t.is(rules.length, 1, text);
      const canonical = formatEgressRule(rules[0]!);
      t.deepEqual(parseEgressRules(canonical, 'test'), rules, `${text} → ${canonical}`);
      t.is(formatEgressRule(parseEgressRules(canonical, 'test')[0]!), canonical);
    }),
  );
});

test('a list written back canonically parses to the same rules, duplicates dropped', (t) => {
  fc.assert(
    fc.property(fc.array(entry, { maxLength: 8 }), (entries) => {
      const rules = parseEgressRules(entries.join(','), 'test');
      const canonical = rules.map(formatEgressRule);
      t.is(new Set(canonical).size, canonical.length);
      t.deepEqual(parseEgressRules(canonical.join(','), 'test'), rules);
    }),
  );
});

test('a spelling of an address matches exactly the rules its canonical text matches, among them those naming it', (t) => {
  fc.assert(
    fc.property(
      ipv6Value,
      spellingArbitrary,
      fc.integer({ min: 0, max: 128 }),
      fc.array(entry, { maxLength: 6 }),
      (value, spelling, prefix, entries) => {
        const canonical = formatIp({ version: 6, value });
        const shift = BigInt(128 - prefix);
        const naming = [
          canonical,
          `[${canonical}]:443`,
          `${formatIp({ version: 6, value: (value >> shift) << shift })}/${prefix}`,
        ];
        const matches = (address: string) => (rule: Parameters<typeof egressRuleMatches>[0]) =>
          egressRuleMatches(rule, { host: 'x.example', port: 443, address });
        for (const rule of parseEgressRules(naming.join(','), 'test'))
          t.true(matches(spell(value, spelling))(rule), formatEgressRule(rule));
        for (const rule of parseEgressRules(entries.join(','), 'test'))
          t.is(matches(spell(value, spelling))(rule), matches(canonical)(rule));
      },
    ),
  );
});
