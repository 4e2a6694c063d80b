// The worker's OAuth token cache: one fetch shared by concurrent requests, the
// token reused until shortly before it expires, fetched again after.
import test from 'ava';
import { OAuthTokenCache, type TokenGrant } from '../../workflows/outbound/oauth-token-cache.ts';

function clockAndFetcher(lifetimeMs: number | undefined) {
  let now = 1_000_000;
  let fetches = 0;
  const fetch = async (): Promise<TokenGrant> => {
    fetches++;
    // A fetch takes a moment, as over the network: concurrent requests overlap it.
    await new Promise((resolve) => setTimeout(resolve, 5));
    return { accessToken: `token-${fetches}`, expiresInMs: lifetimeMs };
  };
  return { cache: new OAuthTokenCache(() => now), fetch, advance: (ms: number) => (now += ms), fetches: () => fetches };
}

test('concurrent requests share one fetch', async (t) => {
  const { cache, fetch, fetches } = clockAndFetcher(300_000);
  const tokens = await Promise.all([1, 2, 3, 4].map(() => cache.token('k', fetch)));
  t.deepEqual(new Set(tokens), new Set(['token-1']));
  t.is(fetches(), 1);
});

test('a token is reused until shortly before it expires (a minute, or a tenth of its life), then fetched again', async (t) => {
  const { cache, fetch, advance, fetches } = clockAndFetcher(3_600_000);
  t.is(await cache.token('k', fetch), 'token-1');
  advance(3_539_000);
  t.is(await cache.token('k', fetch), 'token-1');
  advance(2_000);
  t.is(await cache.token('k', fetch), 'token-2');
  t.is(fetches(), 2);
});

test('short-lived tokens are refreshed a tenth of their life early; undated ones live a minute', async (t) => {
  const short = clockAndFetcher(10_000);
  await short.cache.token('k', short.fetch);
  short.advance(8_900);
  t.is(await short.cache.token('k', short.fetch), 'token-1');
  short.advance(200);
  t.is(await short.cache.token('k', short.fetch), 'token-2');
  const undated = clockAndFetcher(undefined);
  await undated.cache.token('k', undated.fetch);
  undated.advance(53_000);
  t.is(await undated.cache.token('k', undated.fetch), 'token-1');
  undated.advance(2_000);
  t.is(await undated.cache.token('k', undated.fetch), 'token-2');
});

test('invalidate forgets a refused token; another key has its own token; a failed fetch is not cached', async (t) => {
  const { cache, fetch, fetches } = clockAndFetcher(300_000);
  await cache.token('k', fetch);
  cache.invalidate('k');
  t.is(await cache.token('k', fetch), 'token-2');
  t.is(await cache.token('other', fetch), 'token-3');
  await t.throwsAsync(
    cache.token('broken', async () => {
      throw new Error('token endpoint down');
    }),
    { message: 'token endpoint down' },
  );
  t.is(await cache.token('broken', fetch), 'token-4');
  t.is(fetches(), 4);
});
