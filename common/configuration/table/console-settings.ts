// The web console (engine/edges/console/): the flow card in a browser. It serves
// admin actions to people, so it has its own listener (never the public webhook
// port), on loopback unless an operator opens it, with TLS and a fixed https
// origin beyond loopback.
import { setting, settingsGroup } from '../setting.ts';
import { boolean } from '../values/boolean-value.ts';
import { duration } from '../values/duration-value.ts';
import { list } from '../values/list-value.ts';
import { port } from '../values/port-value.ts';
import { text } from '../values/text-value.ts';
import { url } from '../values/url-value.ts';
import { ownPort } from './own-port.ts';

/** The console's port under `flowhook start` unless FLOWHOOK_CONSOLE_PORT says otherwise (next to the metrics ports 7051..7053). */
export const LOCAL_CONSOLE_PORT = 7054;

/** Twelve hours: the longest FLOWHOOK_CONSOLE_SESSION_TTL. */
export const MAX_SESSION_TTL_MS = 12 * 3_600_000;

export const CONSOLE_SETTINGS = settingsGroup('Console', {
  FLOWHOOK_CONSOLE_PORT: ownPort({
    type: port({ freePort: true, off: true }),
    defaultText: 'off; `start`: `7054` (a free port when that one is taken)',
    processes: ['engine', 'start'],
    meaning: 'the web console (its pages and the RPCs they call) on its own HTTP listener',
    more: 'See docs/console.md.',
    roles: {
      start: 'the console next to the engine (default 7054; off: none)',
      worker: "refused to flows (one of flowhook's own ports; default 7054)",
    },
  }),
  FLOWHOOK_CONSOLE_HOST: setting({
    type: text(),
    default: '127.0.0.1',
    processes: ['engine'],
    meaning:
      "its listen address; a non-loopback one needs an https `FLOWHOOK_CONSOLE_PUBLIC_URL` and either the engine's TLS certificate (then it serves HTTPS) or `FLOWHOOK_CONSOLE_INSECURE=true`",
  }),
  FLOWHOOK_CONSOLE_INSECURE: setting({
    type: boolean(),
    default: false,
    processes: ['engine'],
    meaning:
      '`true` lets the console listen in cleartext on a non-loopback address, behind a proxy that terminates TLS (browsers still use the https `FLOWHOOK_CONSOLE_PUBLIC_URL`; cookies stay Secure)',
  }),
  FLOWHOOK_CONSOLE_PUBLIC_URL: setting({
    // Browsers send admin tokens and session cookies there: in clear text only on the machine itself.
    type: url({ base: true, secure: true }),
    defaultText: 'the address it listens on (loopback only)',
    processes: ['engine'],
    meaning:
      'the console as browsers open it: the only origin whose pages it answers, and the base of the OpenID Connect redirect URI; **required** off loopback, and https there (Secure `__Host-` cookies, HSTS)',
  }),
  FLOWHOOK_TEMPORAL_UI_URL: setting({
    type: url({ base: true }),
    defaultText: 'unset: no link; `start`: its own Web UI',
    processes: ['engine'],
    meaning:
      "the Temporal Web UI as people open it: the console's execution pages (and `execution show --json`) link each execution there",
  }),
  FLOWHOOK_CONSOLE_SESSION_TTL: setting({
    type: duration({ min: 60_000, max: MAX_SESSION_TTL_MS }),
    default: 8 * 3_600_000,
    processes: ['engine'],
    meaning:
      'how long a sign-in lasts (a session also ends at sign-out, when an admin ends it, and when its admin token is rotated or its account disabled)',
    why: 'a session holds the roles of its sign-in (re-read at the identity provider only when it allows): a working day at most',
  }),
  FLOWHOOK_CONSOLE_OIDC_RECHECK: setting({
    type: duration({ min: 1000, max: 3_600_000 }),
    default: 3_600_000,
    processes: ['engine'],
    meaning:
      "how old an OpenID Connect session's roles may be: older, they are read again at the identity provider (its refresh token) when the session is next used, and the session ends if the provider refuses or gives no role",
    why: 'a person removed at the identity provider must not keep their roles for longer than an hour',
  }),
  FLOWHOOK_CONSOLE_OIDC_ISSUER: setting({
    // Signing keys and tokens fetched over clear text could be swapped by anyone on the path.
    type: url({ secure: true }),
    defaultText: 'unset: sign-in with an admin token only',
    processes: ['engine'],
    meaning: 'OpenID Connect issuer people sign in with (authorization code with PKCE)',
  }),
  FLOWHOOK_CONSOLE_OIDC_CLIENT_ID: setting({
    type: text(),
    processes: ['engine'],
    meaning: "the console's client id at that issuer",
  }),
  FLOWHOOK_CONSOLE_OIDC_CLIENT_SECRET: setting({
    type: text(),
    secret: true,
    defaultText: 'unset: a public client (PKCE alone)',
    processes: ['engine'],
    meaning: 'its client secret, for a confidential client',
  }),
  FLOWHOOK_CONSOLE_OIDC_ROLES_CLAIM: setting({
    type: text(),
    default: 'flowhook_roles',
    processes: ['engine'],
    meaning:
      'the ID token claim listing console roles: `viewer`, `editor`, `admin` (every company) or `<role>:<company>`',
  }),
  FLOWHOOK_CONSOLE_OIDC_SCOPES: setting({
    type: list(text()),
    default: ['openid', 'profile', 'email'],
    processes: ['engine'],
    meaning: 'the scopes asked for (`openid` is always asked for)',
  }),
});
