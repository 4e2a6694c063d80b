// The engine's codec server, which shows doNotLogPayload payloads to signed-in operators in the
// Temporal UI. It decrypts, so it is off unless a port is set, listens on loopback by default,
// and answers browsers only from the origins listed.
import { setting, settingsGroup } from '../setting.ts';
import { duration } from '../values/duration-value.ts';
import { list } from '../values/list-value.ts';
import { port } from '../values/port-value.ts';
import { text } from '../values/text-value.ts';
import { origin, url } from '../values/url-value.ts';
import { ownPort } from './own-port.ts';

export const CODEC_SETTINGS = settingsGroup('Codec server (Temporal UI)', {
  FLOWHOOK_CODEC_PORT: ownPort({
    type: port({ freePort: true, off: true }),
    defaultText: "off; `start` with the dev server: the Web UI's port + 1 (`8234`)",
    processes: ['engine', 'start'],
    meaning: 'the codec server for the Temporal UI',
    more: 'See [the codec server](../how-to/observe.md#read-donotlogpayload-payloads-in-the-temporal-ui).',
    roles: {
      start: 'codec server next to the dev server UI (default: UI port + 1, 8234; off: none)',
      worker: "refused to flows (one of flowhook's own ports; default the UI port + 1)",
    },
  }),
  FLOWHOOK_CODEC_HOST: setting({
    type: text(),
    default: '127.0.0.1',
    processes: ['engine', 'start'],
    meaning:
      "its listen address; a non-loopback one needs the engine's TLS certificate (then it serves HTTPS) or `FLOWHOOK_ENGINE_INSECURE=true`",
  }),
  FLOWHOOK_CODEC_ALLOWED_ORIGINS: setting({
    type: list(origin()),
    defaultText: 'none; `start`: `http://127.0.0.1:<UI port>`, `http://localhost:<UI port>`',
    processes: ['engine', 'start'],
    meaning: 'the Temporal UI origins (no wildcard) whose pages may call it',
  }),
  FLOWHOOK_CODEC_SESSION_TTL: setting({
    type: duration({ min: 60_000, max: 24 * 3_600_000 }),
    default: 3_600_000,
    processes: ['engine'],
    meaning: 'how long a sign-in on its `/login` page lasts',
  }),
  FLOWHOOK_CODEC_OAUTH_ISSUER: setting({
    // Signing keys fetched over clear text could be swapped by anyone on the path.
    type: url({ secure: true }),
    defaultText: 'unset: no OAuth operators',
    processes: ['engine'],
    meaning: "issuer of operators' access tokens (the UI passes them)",
  }),
  FLOWHOOK_CODEC_OAUTH_AUDIENCE: setting({
    type: list(text()),
    processes: ['engine'],
    meaning: 'their accepted `aud` values',
  }),
  FLOWHOOK_CODEC_OAUTH_GROUP: setting({
    type: text(),
    processes: ['engine'],
    meaning: 'the operator group (or role) a token must name',
  }),
  FLOWHOOK_CODEC_OAUTH_GROUP_CLAIM: setting({
    type: text(),
    defaultText: '`groups`',
    processes: ['engine'],
    meaning: 'the claim listing the groups',
  }),
  FLOWHOOK_CODEC_OAUTH_JWKS_URI: setting({
    type: url({ secure: true }),
    defaultText: "from the issuer's discovery document",
    processes: ['engine'],
    meaning: "the issuer's key set",
  }),
});
