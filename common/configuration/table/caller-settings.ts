// How the facade authenticates callers, and whom it believes about a request's sender.
import { setting, settingsGroup } from '../setting.ts';
import { choice } from '../values/choice-value.ts';
import { integer } from '../values/integer-value.ts';
import { list } from '../values/list-value.ts';
import { text } from '../values/text-value.ts';

export const CALLER_SETTINGS = settingsGroup('Caller authentication', {
  FLOWHOOK_OAUTH_ISSUERS: setting({
    type: text({ description: 'comma list of URLs, or JSON' }),
    defaultText: 'unset: no Bearer callers',
    processes: ['facade'],
    meaning:
      'trusted token issuers: a comma list of issuer URLs, or a JSON array of `{"issuer", "jwksUri"?, "audiences"?}`; https (http only on loopback)',
  }),
  FLOWHOOK_OAUTH_AUDIENCE: setting({
    type: list(text()),
    processes: ['facade'],
    meaning: 'accepted `aud` values: the flowhook API resource (required with issuers that name no `audiences`)',
  }),
  FLOWHOOK_OAUTH_CLOCK_TOLERANCE_SECONDS: setting({
    type: integer({ min: 0, max: 300, unit: 'seconds' }),
    default: 60,
    processes: ['facade'],
    meaning: 'clock skew allowed for `exp`/`nbf`',
  }),
  FLOWHOOK_OAUTH_MAX_TOKEN_AGE_SECONDS: setting({
    // One day: the longest default lifetime among common providers' client-credentials tokens
    // (Auth0's API default is 86400 s; Entra ID issues 60–90 min, Okta and Cognito 1 h, Keycloak 5 min).
    type: integer({ min: 60, zero: 'no limit', unit: 'seconds' }),
    default: 86_400,
    processes: ['facade'],
    meaning: 'oldest Bearer token accepted, by its `iat` (a token without `iat` is refused)',
    why: 'a limit must leave room for the clock tolerance',
  }),
  FLOWHOOK_BASIC_AUTH: setting({
    type: choice(['on', 'off']),
    default: 'on',
    processes: ['facade'],
    meaning:
      '`off` makes a Bearer-only deployment: access keys over Basic are refused (401) and the challenge names `Bearer` only',
    more: 'Needs `FLOWHOOK_OAUTH_ISSUERS` (refused at start without).',
  }),
  FLOWHOOK_TRUSTED_PROXIES: setting({
    type: text({ description: 'comma list of IPs and CIDR blocks' }),
    defaultText: 'none',
    processes: ['facade'],
    meaning: "proxies (IPs and CIDR blocks, comma-separated) whose `X-Forwarded-For` names a request's sender",
    more: 'Read from the right past every trusted hop; without it the header is never read, since anyone can write it.',
  }),
});
