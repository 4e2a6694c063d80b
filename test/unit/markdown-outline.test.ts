// The handbook's link check reads pages as a code host renders them: heading anchors by GitHub's
// rule, links outside code, and it reports what is broken (so the check in handbook.test.ts can
// fail).
import test from 'ava';
import { brokenLinks } from '../../docs/tooling/link-check.ts';
import { outline, slug } from '../../docs/tooling/markdown-outline.ts';

test("anchors follow GitHub's rule", (t) => {
  t.is(slug('The two commands'), 'the-two-commands');
  t.is(
    slug('`standardWebhooks` — Svix and every Standard Webhooks sender'),
    'standardwebhooks--svix-and-every-standard-webhooks-sender',
  );
  t.is(slug('Local installation (`flowhook start`)'), 'local-installation-flowhook-start');
  t.is(slug('Stripe → flowhook, step by step'), 'stripe--flowhook-step-by-step');
  t.is(slug('FLOWHOOK_ENGINE_URL and [TLS](x.md)'), 'flowhook_engine_url-and-tls');
  t.deepEqual([...outline('# A\n## A\n```\n# not a heading\n```\n<a id="here"></a>\n').anchors].sort(), [
    'a',
    'a-1',
    'here',
  ]);
});

test('links inside code are not links; code spans naming repository files are checked', (t) => {
  const { links, paths } = outline(
    'see [x](a.md#b) and `[y](c.md)`\n```\n[z](d.md)\n```\nthe file `engine/errors.ts`, not `<data dir>/x`\n',
  );
  t.deepEqual(
    links.map((link) => link.target),
    ['a.md#b'],
  );
  t.deepEqual(
    paths.map((path) => path.target),
    ['engine/errors.ts'],
  );
});

test('broken links, anchors and named files are reported with their line', (t) => {
  const pages = [
    {
      path: 'docs/one.md',
      text: '# One\n\n[two](two.md#missing) [self](#one) [gone](nowhere.md) [out](../../etc/passwd) [site](https://example.com/x)\n`engine/no-such-file.ts`\n',
    },
    { path: 'docs/two.md', text: '# Two\n' },
  ];
  t.deepEqual(brokenLinks(pages), [
    'docs/one.md:3: two.md#missing: no heading with the anchor #missing in docs/two.md',
    'docs/one.md:3: nowhere.md: no such file or folder (docs/nowhere.md)',
    'docs/one.md:3: ../../etc/passwd: leads outside the repository',
    'docs/one.md:4: `engine/no-such-file.ts` names no file of the repository',
  ]);
});
