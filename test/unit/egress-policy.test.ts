import test from 'ava';
import {
  checkEgress,
  EGRESS_ALLOW_VARIABLE,
  egressRuleMatches,
  formatEgressRule,
  internalAddressKind,
  parseEgressRules,
  type EgressPolicy,
  type EgressTarget,
} from '../../flow/egress-policy.ts';

const OWN_PORTS = new Map([
  [7049, 'engine'],
  [7050, 'facade'],
  [7233, 'Temporal'],
  [5432, 'PostgreSQL'],
]);

function policy(allow = '', company?: { name: string; allow: string }): EgressPolicy {
  return {
    allow: parseEgressRules(allow, EGRESS_ALLOW_VARIABLE),
    ownPorts: OWN_PORTS,
    ...(company
      ? { company: { name: company.name, allow: parseEgressRules(company.allow, `company "${company.name}"`) } }
      : {}),
  };
}

function target(address: string, port = 443, host = address): EgressTarget {
  return { host, port, address };
}

const allowed = (p: EgressPolicy, t: EgressTarget) => checkEgress(p, t).allowed;
const ruleOf = (p: EgressPolicy, t: EgressTarget) => {
  const decision = checkEgress(p, t);
  return decision.allowed ? 'allowed' : decision.rule;
};

// --- internal ranges ---------------------------------------------------------

const INTERNAL: [string, string][] = [
  // IPv4
  ['0.0.0.0', 'unspecified'],
  ['0.255.255.255', 'unspecified'],
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['10.255.255.255', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'shared address space (100.64.0.0/10)'],
  ['100.127.255.255', 'shared address space (100.64.0.0/10)'],
  ['169.254.169.254', 'link-local'],
  ['169.254.0.1', 'link-local'],
  ['192.0.0.8', 'reserved'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.200', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'reserved'],
  // IPv6
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['0:0:0:0:0:0:0:1', 'loopback'],
  ['0000:0000:0000:0000:0000:0000:0000:0001', 'loopback'],
  ['[::1]', 'loopback'],
  ['fe80::1', 'link-local'],
  ['FE80::1', 'link-local'],
  ['febf:ffff::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['[fe80::abcd%25en0]', 'link-local'],
  ['fec0::1', 'site-local'],
  ['fc00::1', 'unique-local'],
  ['fd00:ec2::254', 'unique-local'],
  ['FD12:3456:789A::1', 'unique-local'],
  ['ff02::1', 'multicast'],
  ['ff05::1:3', 'multicast'],
  ['2001:db8::1', 'documentation'],
  ['2001:DB8:FFFF::', 'documentation'],
  ['100::1', 'discard-only'],
  ['100::ffff:ffff:ffff:ffff', 'discard-only'],
  // IPv6 spellings carrying an IPv4 address are judged by that address
  ['::ffff:127.0.0.1', 'loopback'],
  ['::FFFF:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['0:0:0:0:0:ffff:7f00:0001', 'loopback'],
  ['[::ffff:169.254.169.254]', 'link-local'],
  ['::ffff:a9fe:a9fe', 'link-local'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:0.0.0.0', 'unspecified'],
  ['::127.0.0.1', 'loopback'],
  ['::7f00:1', 'loopback'],
  ['::a9fe:a9fe', 'link-local'],
  ['64:ff9b::7f00:1', 'loopback'],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['64:ff9b::a9fe:a9fe', 'link-local'],
  ['2002:7f00:1::', 'loopback'],
  ['2002:a9fe:a9fe::1', 'link-local'],
  ['2002:c0a8:101:5::9', 'private'],
  ['::ffff:0:127.0.0.1', 'loopback'],
  ['::ffff:0:a00:1', 'private'],
];

for (const [address, kind] of INTERNAL) {
  test(`${address} is ${kind} and refused without an entry`, (t) => {
    t.is(internalAddressKind(address), kind);
    const decision = checkEgress(policy(), target(address, 443, 'service.example'));
    t.false(decision.allowed);
    if (!decision.allowed) {
      t.is(decision.rule, kind.startsWith('shared address space') ? 'shared-address-space' : kind);
      t.true(decision.message.startsWith('refused by the egress policy: service.example resolves to '));
      t.true(decision.message.includes(EGRESS_ALLOW_VARIABLE));
    }
  });
}

test('public addresses are allowed', (t) => {
  for (const address of [
    '8.8.8.8',
    '93.184.216.34',
    '1.1.1.1',
    '2606:4700::1111',
    '2a00:1450:4001:80e::200e',
    '172.32.0.1',
    '100.128.0.1',
    '11.0.0.1',
    '192.169.0.1',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ]) {
    t.is(internalAddressKind(address), undefined, address);
    t.true(allowed(policy(), target(address)), address);
  }
});

test("every cloud metadata address is refused without an entry: Azure's WireServer by name, the others by their range", (t) => {
  const metadata: [string, string, string][] = [
    ['168.63.129.16', 'cloud-metadata', 'Azure WireServer'],
    ['::ffff:168.63.129.16', 'cloud-metadata', 'Azure WireServer, IPv4-mapped'],
    ['64:ff9b::a83f:8110', 'cloud-metadata', 'Azure WireServer, NAT64'],
    ['2002:a83f:8110::1', 'cloud-metadata', 'Azure WireServer, 6to4'],
    ['169.254.169.254', 'link-local', 'AWS, GCP, Azure IMDS, Oracle, DigitalOcean, OpenStack, Hetzner'],
    ['169.254.170.2', 'link-local', 'AWS ECS task metadata'],
    ['169.254.0.23', 'link-local', 'Tencent Cloud'],
    ['169.254.42.42', 'link-local', 'Scaleway'],
    ['100.100.100.200', 'shared-address-space', 'Alibaba Cloud'],
    ['192.0.0.192', 'reserved', 'Oracle Cloud (legacy)'],
    ['fd00:ec2::254', 'unique-local', 'AWS IMDS over IPv6'],
    ['fd20:ce::254', 'unique-local', 'GCP metadata over IPv6'],
    ['fd00:c1::a9fe:a9fe', 'unique-local', 'Oracle IMDS over IPv6'],
    ['fd00:42::42', 'unique-local', 'Scaleway over IPv6'],
    ['fe80::a9fe:a9fe', 'link-local', 'OpenStack over IPv6'],
  ];
  for (const [address, rule, whose] of metadata)
    t.is(ruleOf(policy(), target(address, 80, 'metadata.example')), rule, `${address} (${whose})`);
  const decision = checkEgress(policy(), target('168.63.129.16', 80));
  t.deepEqual(decision, {
    allowed: false,
    rule: 'cloud-metadata',
    message:
      "refused by the egress policy: 168.63.129.16 is Azure's WireServer, a cloud metadata address (open it with FLOWHOOK_EGRESS_ALLOW, e.g. FLOWHOOK_EGRESS_ALLOW=168.63.129.16:80)",
  });
  t.is(internalAddressKind('168.63.129.16'), 'cloud metadata');
  // Only that address: its public neighbours stay public, and an entry naming it opens it.
  for (const neighbour of ['168.63.129.15', '168.63.129.17', '168.63.128.16'])
    t.true(allowed(policy(), target(neighbour)), neighbour);
  t.true(allowed(policy('168.63.129.16'), target('168.63.129.16', 32526)));
});

test('IPv6 outside global unicast and IETF special blocks are reserved', (t) => {
  t.is(internalAddressKind('4000::1'), 'reserved');
  t.is(internalAddressKind('2001::1'), 'reserved'); // Teredo
  t.is(internalAddressKind('2001:2::1'), 'benchmarking');
  t.is(internalAddressKind('3fff::1'), 'documentation');
  t.is(internalAddressKind('64:ff9b:1::a00:1'), 'reserved');
  t.is(internalAddressKind('2001:200::1'), undefined);
});

test('text that is not an IP literal is refused, never allowed', (t) => {
  for (const address of [
    '',
    'localhost',
    'example.com',
    '127.1',
    '0x7f.0.0.1',
    '127.000.000.001',
    '0177.0.0.1',
    '2130706433',
    '1.2.3.4.5',
    '256.1.1.1',
    '1.2.3.4%eth0',
    '[127.0.0.1]',
    ' 127.0.0.1',
    '::1 ',
    '1:2:3:4:5:6:7:8:9',
    '1::2::3',
    ':::1',
    '12345::',
    '::ffff:127.0.0.1.1',
    'fe80::1%',
    'fe80::1%eth 0',
    'g::1',
  ]) {
    t.is(internalAddressKind(address), 'not an IP address', address);
    const decision = checkEgress(
      policy('0.0.0.0/0,::/0,*.example.com,example.com'),
      target(address, 443, 'example.com'),
    );
    t.deepEqual(decision.allowed ? 'allowed' : decision.rule, 'not-an-ip-address', address);
  }
});

test('the messages name the rule, the address and what to change', (t) => {
  t.deepEqual(checkEgress(policy(), target('127.0.0.1', 8080)), {
    allowed: false,
    rule: 'loopback',
    message:
      'refused by the egress policy: 127.0.0.1 is a loopback address (open it with FLOWHOOK_EGRESS_ALLOW, e.g. FLOWHOOK_EGRESS_ALLOW=127.0.0.1:8080)',
  });
  t.deepEqual(checkEgress(policy(), target('10.1.1.1', 443, 'erp.internal')), {
    allowed: false,
    rule: 'private',
    message:
      'refused by the egress policy: erp.internal resolves to 10.1.1.1, which is a private address (open it with FLOWHOOK_EGRESS_ALLOW, e.g. FLOWHOOK_EGRESS_ALLOW=erp.internal:443)',
  });
  t.deepEqual(checkEgress(policy(), target('::ffff:7f00:1', 80)), {
    allowed: false,
    rule: 'loopback',
    message:
      'refused by the egress policy: ::ffff:7f00:1 (IPv4 127.0.0.1 in an IPv4-mapped IPv6 address) is a loopback address (open it with FLOWHOOK_EGRESS_ALLOW, e.g. FLOWHOOK_EGRESS_ALLOW=[::ffff:127.0.0.1]:80)',
  });
  t.deepEqual(checkEgress(policy(), target('100.64.0.1', 80)), {
    allowed: false,
    rule: 'shared-address-space',
    message:
      'refused by the egress policy: 100.64.0.1 is in the shared address space (100.64.0.0/10) (open it with FLOWHOOK_EGRESS_ALLOW, e.g. FLOWHOOK_EGRESS_ALLOW=100.64.0.1:80)',
  });
  t.deepEqual(checkEgress(policy(), target('::', 80)), {
    allowed: false,
    rule: 'unspecified',
    message:
      'refused by the egress policy: :: is an unspecified address (open it with FLOWHOOK_EGRESS_ALLOW, e.g. FLOWHOOK_EGRESS_ALLOW=[::]:80)',
  });
  t.deepEqual(checkEgress(policy(), target('8.8.8.8', 7049, 'dns.example')), {
    allowed: false,
    rule: 'own-port',
    message:
      "refused by the egress policy: port 7049 is flowhook's own engine port; only a host:port entry naming it opens it, e.g. FLOWHOOK_EGRESS_ALLOW=dns.example:7049",
  });
  t.deepEqual(
    checkEgress(
      policy('', { name: 'Acme', allow: 'api.acme.example' }),
      target('93.184.216.34', 443, 'erp.example.com'),
    ),
    {
      allowed: false,
      rule: 'company-egress',
      message:
        'refused by company "Acme" egress list: erp.example.com:443 (93.184.216.34) is not on it (change it with flowhook company egress set Acme …)',
    },
  );
  t.deepEqual(checkEgress(policy('', { name: 'Acme Corp', allow: '' }), target('2606:4700::1111', 443)), {
    allowed: false,
    rule: 'company-egress',
    message:
      'refused by company "Acme Corp" egress list: [2606:4700::1111]:443 is not on it (change it with flowhook company egress set "Acme Corp" …)',
  });
  const notIp = checkEgress(policy(), target('exa"mple', 443));
  t.deepEqual(notIp, {
    allowed: false,
    rule: 'not-an-ip-address',
    message: 'refused by the egress policy: "exa\\"mple" is not an IP address',
  });
});

test('an invalid port is refused', (t) => {
  for (const port of [0, -1, 65536, 1.5, Number.NaN]) {
    t.is(ruleOf(policy(), target('8.8.8.8', port)), 'invalid-port', String(port));
  }
});

// --- the allow list ----------------------------------------------------------

test('the example list opens exactly what it names', (t) => {
  const p = policy('erp.internal,10.20.0.0/16,127.0.0.1:8080');
  t.true(allowed(p, target('10.20.5.5', 443, 'svc.example')));
  t.true(allowed(p, target('10.20.255.255', 80)));
  t.is(ruleOf(p, target('10.21.0.1', 443, 'svc.example')), 'private');
  t.is(ruleOf(p, target('10.19.255.255', 443)), 'private');
  t.true(allowed(p, target('127.0.0.1', 8080)));
  t.true(allowed(p, target('127.0.0.1', 8080, 'localhost')));
  t.is(ruleOf(p, target('127.0.0.1', 8081)), 'loopback');
  t.is(ruleOf(p, target('127.0.0.2', 8080)), 'loopback');
  t.true(allowed(p, target('10.1.1.1', 443, 'erp.internal')));
  t.true(allowed(p, target('10.1.1.1', 8443, 'erp.internal')));
  t.true(allowed(p, target('169.254.169.254', 80, 'erp.internal')));
  t.is(ruleOf(p, target('10.1.1.1', 443, 'other.internal')), 'private');
  t.is(ruleOf(p, target('10.1.1.1', 443, 'x.erp.internal')), 'private');
  t.is(ruleOf(p, target('10.1.1.1', 443, 'erp.internal.evil.example')), 'private');
  t.is(ruleOf(p, target('10.1.1.1', 443)), 'private');
  // Public addresses need no entry.
  t.true(allowed(p, target('93.184.216.34', 443, 'example.com')));
});

test('host names are matched case-insensitively and without a trailing dot', (t) => {
  const p = policy('ERP.Internal.');
  t.deepEqual(p.allow, [{ kind: 'host', host: 'erp.internal' }]);
  t.true(allowed(p, target('10.1.1.1', 443, 'erp.internal')));
  t.true(allowed(p, target('10.1.1.1', 443, 'ERP.INTERNAL.')));
});

test('an IPv4 network also matches the IPv4 address embedded in IPv6 spellings', (t) => {
  const p = policy('10.20.0.0/16,127.0.0.1:8080');
  t.true(allowed(p, target('::ffff:10.20.1.1')));
  t.true(allowed(p, target('::ffff:a14:101')));
  t.true(allowed(p, target('64:ff9b::a14:101')));
  t.true(allowed(p, target('2002:a14:101::')));
  t.is(ruleOf(p, target('::ffff:10.21.1.1')), 'private');
  t.true(allowed(p, target('::ffff:127.0.0.1', 8080)));
  t.is(ruleOf(p, target('::ffff:127.0.0.1', 8081)), 'loopback');
  // And an IPv4-mapped network matches plain IPv4.
  t.true(allowed(policy('::ffff:10.0.0.0/104'), target('10.9.9.9')));
  t.is(ruleOf(policy('::ffff:10.0.0.0/104'), target('11.9.9.9', 7049)), 'own-port');
});

test('IPv6 entries, bracketed and bare, match any spelling of the address and zone ids are ignored', (t) => {
  const p = policy('[::1]:9000,fd00:ec2::254,fe80::/64');
  t.true(allowed(p, target('::1', 9000)));
  t.true(allowed(p, target('0:0:0:0:0:0:0:1', 9000)));
  t.true(allowed(p, target('[::1]', 9000, '::1')));
  t.is(ruleOf(p, target('::1', 9001)), 'loopback');
  t.true(allowed(p, target('FD00:EC2:0:0:0:0:0:254', 80)));
  t.is(ruleOf(p, target('fd00:ec2::253', 80)), 'unique-local');
  t.true(allowed(p, target('fe80::1%eth0', 80)));
  t.is(ruleOf(p, target('fe80:0:0:1::1%eth0', 80)), 'link-local');
  t.true(allowed(policy('[::1]'), target('::1', 1234)));
});

test('a host:port entry opens the host or its address on that port only', (t) => {
  const p = policy('erp.internal:8443');
  t.true(allowed(p, target('10.1.1.1', 8443, 'erp.internal')));
  t.is(ruleOf(p, target('10.1.1.1', 443, 'erp.internal')), 'private');
  t.is(ruleOf(p, target('10.1.1.1', 8443, 'other.internal')), 'private');
  // An IP host:port entry matches the resolved address whatever the name.
  t.true(allowed(policy('10.1.1.1:8443'), target('10.1.1.1', 8443, 'anything.example')));
});

test('wildcard entries match any subdomain but not the bare domain', (t) => {
  const p = policy('*.corp.example');
  t.true(allowed(p, target('10.1.1.1', 443, 'a.corp.example')));
  t.true(allowed(p, target('10.1.1.1', 443, 'a.b.corp.example')));
  t.is(ruleOf(p, target('10.1.1.1', 443, 'corp.example')), 'private');
  t.is(ruleOf(p, target('10.1.1.1', 443, 'evilcorp.example')), 'private');
  t.is(ruleOf(p, target('10.1.1.1', 443, 'a.corp.example.evil')), 'private');
  const withPort = policy('*.corp.example:8443');
  t.true(allowed(withPort, target('10.1.1.1', 8443, 'a.corp.example')));
  t.is(ruleOf(withPort, target('10.1.1.1', 443, 'a.corp.example')), 'private');
  // A host rule never matches a URL whose host is an IP literal.
  t.false(egressRuleMatches({ kind: 'host', host: '*.1' }, target('10.0.0.1', 443)));
});

// --- own ports ---------------------------------------------------------------

test("flowhook's own ports are refused on public and allowed addresses alike", (t) => {
  const p = policy('erp.internal,10.20.0.0/16,127.0.0.1:8080,*.corp.example:7049');
  for (const [port, name] of OWN_PORTS) {
    for (const t1 of [
      target('8.8.8.8', port, 'dns.example'),
      target('10.20.1.1', port),
      target('10.1.1.1', port, 'erp.internal'),
      target('127.0.0.1', port),
    ]) {
      const decision = checkEgress(p, t1);
      t.false(decision.allowed);
      if (!decision.allowed) {
        t.is(decision.rule, 'own-port');
        t.true(decision.message.includes(`port ${port} is flowhook's own ${name} port`));
      }
    }
  }
  // A wildcard host:port never opens an own port.
  t.is(ruleOf(p, target('10.1.1.1', 7049, 'a.corp.example')), 'own-port');
  t.is(ruleOf(p, target('8.8.8.8', 7049, 'a.corp.example')), 'own-port');
});

test('a host:port entry naming the exact host or address opens an own port', (t) => {
  const p = policy('127.0.0.1:7049,temporal.internal:7233,[::1]:5432');
  t.true(allowed(p, target('127.0.0.1', 7049)));
  t.true(allowed(p, target('127.0.0.1', 7049, 'localhost')));
  t.true(allowed(p, target('::ffff:127.0.0.1', 7049, 'localhost')));
  t.is(ruleOf(p, target('127.0.0.2', 7049)), 'own-port');
  t.is(ruleOf(p, target('127.0.0.1', 7050)), 'own-port');
  t.true(allowed(p, target('10.5.5.5', 7233, 'temporal.internal')));
  t.is(ruleOf(p, target('10.5.5.5', 7233, 'other.internal')), 'own-port');
  t.true(allowed(p, target('::1', 5432)));
  t.is(ruleOf(p, target('::1', 5433)), 'loopback');
  // The public address of a host named by host:port on an own port.
  t.true(allowed(policy('db.example.com:5432'), target('93.184.216.34', 5432, 'db.example.com')));
  t.is(ruleOf(policy('db.example.com'), target('93.184.216.34', 5432, 'db.example.com')), 'own-port');
  t.is(ruleOf(policy('93.184.216.0/24'), target('93.184.216.34', 5432)), 'own-port');
});

// --- company narrowing -------------------------------------------------------

test('a company list narrows public addresses too', (t) => {
  const p = policy('', { name: 'Acme', allow: 'api.partner.example,*.acme.example,93.184.216.0/24,198.41.0.4:443' });
  t.true(allowed(p, target('8.8.8.8', 443, 'api.partner.example')));
  t.true(allowed(p, target('8.8.8.8', 443, 'x.acme.example')));
  t.true(allowed(p, target('93.184.216.34', 443, 'anything.example')));
  t.true(allowed(p, target('198.41.0.4', 443)));
  t.is(ruleOf(p, target('198.41.0.4', 80)), 'company-egress');
  t.is(ruleOf(p, target('8.8.8.8', 443, 'dns.google')), 'company-egress');
  t.is(ruleOf(p, target('8.8.8.8', 443, 'acme.example')), 'company-egress');
  t.is(ruleOf(p, target('2606:4700::1111', 443)), 'company-egress');
});

test('an internal address needs both the operator and the company list', (t) => {
  const both = policy('erp.internal', { name: 'Acme', allow: 'erp.internal' });
  t.true(allowed(both, target('10.1.1.1', 443, 'erp.internal')));
  const operatorOnly = policy('erp.internal', { name: 'Acme', allow: 'api.partner.example' });
  t.is(ruleOf(operatorOnly, target('10.1.1.1', 443, 'erp.internal')), 'company-egress');
  const companyOnly = policy('', { name: 'Acme', allow: 'erp.internal,10.0.0.0/8' });
  t.is(ruleOf(companyOnly, target('10.1.1.1', 443, 'erp.internal')), 'private');
  // The company list cannot open an own port either.
  const ownPort = policy('', { name: 'Acme', allow: 'erp.internal:7049,8.8.8.8:7049' });
  t.is(ruleOf(ownPort, target('8.8.8.8', 7049, 'erp.internal')), 'own-port');
  // An empty company list refuses everything.
  t.is(ruleOf(policy('', { name: 'Acme', allow: '' }), target('8.8.8.8', 443)), 'company-egress');
});

// --- parsing -----------------------------------------------------------------

test('the list parses into canonical rules, ignoring blanks and duplicates', (t) => {
  t.deepEqual(
    parseEgressRules(
      ' erp.internal, ,10.20.0.0/16,127.0.0.1:8080,[::1]:9000,*.corp.example,,erp.internal, ',
      EGRESS_ALLOW_VARIABLE,
    ),
    [
      { kind: 'host', host: 'erp.internal' },
      { kind: 'cidr', cidr: '10.20.0.0/16' },
      { kind: 'hostPort', host: '127.0.0.1', port: 8080 },
      { kind: 'hostPort', host: '::1', port: 9000 },
      { kind: 'host', host: '*.corp.example' },
    ],
  );
  t.deepEqual(parseEgressRules('', EGRESS_ALLOW_VARIABLE), []);
  t.deepEqual(parseEgressRules(' , ', EGRESS_ALLOW_VARIABLE), []);
  t.deepEqual(parseEgressRules('127.0.0.1,::1,[fd00::1],FD00:0:0::/8', EGRESS_ALLOW_VARIABLE), [
    { kind: 'cidr', cidr: '127.0.0.1/32' },
    { kind: 'cidr', cidr: '::1/128' },
    { kind: 'cidr', cidr: 'fd00::1/128' },
    { kind: 'cidr', cidr: 'fd00::/8' },
  ]);
  // A bare IPv6 literal is an address, never host:port.
  t.deepEqual(parseEgressRules('::1:8080', EGRESS_ALLOW_VARIABLE), [{ kind: 'cidr', cidr: '::1:8080/128' }]);
  t.deepEqual(parseEgressRules('[0:0:0:0:0:0:0:1]:8080', EGRESS_ALLOW_VARIABLE), [
    { kind: 'hostPort', host: '::1', port: 8080 },
  ]);
});

const BAD: [string, RegExp][] = [
  ['http://erp.internal', /is a URL/],
  ['https://erp.internal:8443/api', /is a URL/],
  ['erp.internal/api', /paths are not allowed/],
  ['erp.internal:8080/api', /paths are not allowed/],
  [':8080', /host is empty/],
  ['erp.internal:', /port is missing/],
  ['erp.internal:0', /from 1 to 65535/],
  ['erp.internal:65536', /from 1 to 65535/],
  ['erp.internal:http', /from 1 to 65535/],
  ['10.0.0.0/33', /prefix "\/33" is not a number from 0 to 32/],
  ['fd00::/129', /from 0 to 128/],
  ['10.0.0.0/', /prefix/],
  ['10.0.0.0/-1', /prefix/],
  ['10.20.5.0/16', /host bits set; the \/16 network is 10\.20\.0\.0\/16/],
  ['fd00::1/8', /the \/8 network is fd00::\/8/],
  ['300.0.0.0/8', /not a network/],
  ['::1:8080:', /needs brackets/],
  ['fd00::1::8080', /needs brackets/],
  ['[erp.internal]:80', /IPv6 address in brackets/],
  ['[127.0.0.1]:80', /IPv6 address in brackets/],
  ['[::1]8080', /IPv6 address in brackets/],
  ['[::1]:99999', /from 1 to 65535/],
  ['fe80::1%eth0', /zone ids/],
  ['*', /bare "\*"/],
  ['*.', /bare "\*"/],
  ['a.*.example', /only allowed as a leading/],
  ['*erp.internal', /only allowed as a leading/],
  ['erp_internal', /"_" is not allowed/],
  ['user@erp.internal', /"@" is not allowed/],
  ['erp..internal', /empty label/],
  ['-erp.internal', /starts or ends with "-"/],
  ['bücher.example', /xn--/],
  ['127.1', /looks like an IP address/],
  ['10.0.0', /looks like an IP address/],
  ['256.1.1.1', /looks like an IP address/],
  ['erp internal', /white space/],
  [`${'a'.repeat(64)}.example`, /longer than 63/],
];

for (const [item, reason] of BAD) {
  test(`${JSON.stringify(item)} is refused with a message naming the variable and the item`, (t) => {
    const error = t.throws(() => parseEgressRules(`erp.internal,${item},10.0.0.0/8`, EGRESS_ALLOW_VARIABLE));
    t.true(
      error?.message.startsWith(`${EGRESS_ALLOW_VARIABLE}: ${JSON.stringify(item)} is not a valid entry: `),
      error?.message,
    );
    t.regex(error?.message ?? '', reason);
  });
}

test('the source in parse errors is the one given', (t) => {
  const error = t.throws(() => parseEgressRules('http://x', 'the egress list of company "Acme"'));
  t.is(
    error?.message,
    'the egress list of company "Acme": "http://x" is not a valid entry: it is a URL; give only the host name (and port), e.g. erp.internal or erp.internal:8443',
  );
});

test('formatEgressRule gives canonical text that parses back to the same rule', (t) => {
  const cases: [string, string][] = [
    ['erp.internal', 'erp.internal'],
    ['*.Corp.Example', '*.corp.example'],
    ['10.20.0.0/16', '10.20.0.0/16'],
    ['127.0.0.1', '127.0.0.1'],
    ['10.0.0.1/32', '10.0.0.1'],
    ['0.0.0.0/0', '0.0.0.0/0'],
    ['127.0.0.1:8080', '127.0.0.1:8080'],
    ['[::1]:9000', '[::1]:9000'],
    ['[0:0:0:0:0:0:0:1]:09000', '[::1]:9000'],
    ['erp.internal:8443', 'erp.internal:8443'],
    ['*.corp.example:8443', '*.corp.example:8443'],
    ['::1', '::1'],
    ['[FD00:EC2::254]', 'fd00:ec2::254'],
    ['FD00::/8', 'fd00::/8'],
    ['2001:DB8:0:0:1:0:0:1/128', '2001:db8::1:0:0:1'],
    ['2001:db8:0:1:0:0:0:0/64', '2001:db8:0:1::/64'],
    ['1:0:0:2:0:0:0:3', '1:0:0:2::3'],
    ['1:0:2:0:3:0:4:0', '1:0:2:0:3:0:4:0'],
    ['::ffff:7f00:1', '::ffff:127.0.0.1'],
    ['::ffff:10.0.0.0/104', '::ffff:10.0.0.0/104'],
    ['::/0', '::/0'],
  ];
  for (const [input, text] of cases) {
    const [rule] = parseEgressRules(input, EGRESS_ALLOW_VARIABLE);
    t.is(formatEgressRule(rule!), text, input);
    t.deepEqual(parseEgressRules(text, EGRESS_ALLOW_VARIABLE), [rule], text);
  }
  const all = parseEgressRules(cases.map(([input]) => input).join(','), EGRESS_ALLOW_VARIABLE);
  t.deepEqual(parseEgressRules(all.map(formatEgressRule).join(','), EGRESS_ALLOW_VARIABLE), all);
});

test('hand-built rules that do not parse never match', (t) => {
  const p: EgressPolicy = {
    allow: [
      { kind: 'cidr', cidr: 'not-a-network' },
      { kind: 'cidr', cidr: '10.0.0.0/99' },
    ],
    ownPorts: OWN_PORTS,
  };
  t.is(ruleOf(p, target('10.0.0.1')), 'private');
});
