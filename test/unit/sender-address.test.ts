import test from 'ava';
import { ipv6Prefix64, NO_TRUSTED_PROXIES, parseTrustedProxies, senderOf } from '../../facade/sender-address.ts';

test('without trusted proxies the peer is the sender, whatever X-Forwarded-For claims', (t) => {
  t.is(senderOf('203.0.113.9', '198.51.100.1', NO_TRUSTED_PROXIES), '203.0.113.9');
  t.is(
    senderOf('::ffff:203.0.113.9', undefined, NO_TRUSTED_PROXIES),
    '203.0.113.9',
    'an IPv4-mapped peer is its IPv4 address',
  );
  t.is(senderOf(undefined, undefined, NO_TRUSTED_PROXIES), '');
});

test('an IPv6 sender is its /64 prefix, so one subscriber cannot become a new sender per address', (t) => {
  t.is(senderOf('2001:db8:1:2:aaaa::1', undefined, NO_TRUSTED_PROXIES), '2001:db8:1:2::/64');
  t.is(senderOf('2001:db8:1:2:bbbb::9', undefined, NO_TRUSTED_PROXIES), '2001:db8:1:2::/64');
  t.is(ipv6Prefix64('::1'), '0:0:0:0::/64');
  t.is(ipv6Prefix64('2001:DB8::'), '2001:db8:0:0::/64');
  t.is(ipv6Prefix64('2001:0db8:0001:0002:0003:0004:0005:0006'), '2001:db8:1:2::/64');
  t.is(ipv6Prefix64('fe80::1'), 'fe80:0:0:0::/64');
  t.is(senderOf('fe80::1%eth0', undefined, NO_TRUSTED_PROXIES), 'fe80:0:0:0::/64');
});

test('behind trusted proxies X-Forwarded-For is read from the right, past every trusted hop', (t) => {
  const trusted = parseTrustedProxies('10.0.0.0/8, 192.0.2.7, fd00::/8', 'FLOWHOOK_TRUSTED_PROXIES');
  t.deepEqual(trusted.entries, ['10.0.0.0/8', '192.0.2.7', 'fd00::/8']);
  // The client wrote a fake first entry; the proxy appended the address it saw.
  t.is(senderOf('10.1.2.3', '1.1.1.1, 203.0.113.9', trusted), '203.0.113.9');
  // Two trusted hops (a CDN in 10/8 before the load balancer).
  t.is(senderOf('192.0.2.7', '203.0.113.9, 10.0.0.5', trusted), '203.0.113.9');
  t.is(senderOf('10.1.2.3', ['203.0.113.9', '10.0.0.5'], trusted), '203.0.113.9', 'repeated headers are one list');
  t.is(senderOf('::ffff:10.1.2.3', '2001:db8:1:2::5', trusted), '2001:db8:1:2::/64');
  // No header, or garbage in it: the proxy itself is all that is known.
  t.is(senderOf('10.1.2.3', undefined, trusted), '10.1.2.3');
  t.is(senderOf('10.1.2.3', 'not-an-address', trusted), '10.1.2.3');
  // A peer that is not trusted: its header is never read.
  t.is(senderOf('203.0.113.50', '10.0.0.1', trusted), '203.0.113.50');
});

test('trusted proxies that are no address or block stop the facade, naming the variable', (t) => {
  t.is(parseTrustedProxies(' , ', 'FLOWHOOK_TRUSTED_PROXIES'), NO_TRUSTED_PROXIES);
  for (const wrong of ['proxy.internal', '10.0.0.0/33', '10.0.0.0/8/1', 'fd00::/129', '10.0.0.0/x']) {
    t.throws(() => parseTrustedProxies(wrong, 'FLOWHOOK_TRUSTED_PROXIES'), {
      message: new RegExp(
        `^FLOWHOOK_TRUSTED_PROXIES: "${wrong.replace(/[./]/g, '\\$&')}" is not an IP address or CIDR block`,
      ),
    });
  }
});
