// What `flowhook start` prints about the codec server: the URL the Web UI
// calls and where the operator signs in — in the banner and its JSON line.
import test from 'ava';
import { banner, bannerJson, type BannerInfo } from '../../bin/start/banner.ts';

const info: BannerInfo = {
  webhookUrl: 'http://localhost:7048/BC/ODataV4/flowWebhook_Invoke?company=Default',
  metadataUrl: 'http://localhost:7048/BC/ODataV4/$metadata',
  facadeHost: '127.0.0.1',
  engineUrl: 'http://127.0.0.1:7049',
  temporalAddress: '127.0.0.1:7233',
  temporalUiUrl: 'http://127.0.0.1:8233',
  codecUrl: 'http://127.0.0.1:8234',
  dataDir: '/srv/.flowhook',
};

test('the banner names the codec server, its sign-in page and the token to paste', (t) => {
  t.regex(banner(info), /codec server\s+http:\/\/127\.0\.0\.1:8234 .*sign in at http:\/\/127\.0\.0\.1:8234\/login with the token in \/srv\/\.flowhook\/admin-token/);
  t.like(JSON.parse(bannerJson(info)), { codecUrl: 'http://127.0.0.1:8234', codecLoginUrl: 'http://127.0.0.1:8234/login' });
});

test('without a codec server (another Temporal, or FLOWHOOK_CODEC_PORT=off) the banner says nothing about one', (t) => {
  const without = { ...info, codecUrl: undefined };
  t.notRegex(banner(without), /codec/);
  t.like(JSON.parse(bannerJson(without)), { codecUrl: null, codecLoginUrl: null });
});
