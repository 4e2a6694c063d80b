// Tokens the processes present, and the keys that encrypt payloads and stored secrets.
import { setting, settingsGroup } from '../setting.ts';
import { path } from '../values/path-value.ts';
import { text } from '../values/text-value.ts';
import { token } from '../values/token-value.ts';

/** FLOWHOOK_ADMIN_TOKEN's least length: 32 random characters are beyond any guessing, however many tries. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

export const CREDENTIAL_SETTINGS = settingsGroup('Tokens and keys', {
  FLOWHOOK_ADMIN_TOKEN: setting({
    type: token({ minLength: MIN_ADMIN_TOKEN_LENGTH }),
    secret: true,
    why: 'it opens every admin service and the console: make one with `openssl rand -base64 32`',
    processes: ['engine', 'cli'],
    meaning: 'an admin token',
    defaultText: 'admin commands: `<data dir>/admin-token`',
    roles: {
      engine: 'an optional bootstrap admin token, to create the first service accounts (service accounts otherwise)',
      cli: 'the admin token it sends (default: read from `<data dir>/admin-token`)',
    },
  }),
  FLOWHOOK_ENGINE_TOKEN: setting({
    type: token(),
    secret: true,
    defaultText: '`start`: made on first run',
    processes: ['facade', 'worker'],
    meaning: "the process's own service account token; **required** by `flowhook facade` and `flowhook worker`",
    roles: {
      facade: 'its service account token (invoke, --forwards-callers)',
      worker: 'its service account token (records scope)',
    },
  }),
  FLOWHOOK_ENGINE_TOKEN_FILE: setting({
    type: path(),
    processes: ['facade', 'worker'],
    meaning: 'or a file holding that token (mode 0600); not together with `FLOWHOOK_ENGINE_TOKEN`',
  }),
  FLOWHOOK_PAYLOAD_KEY: setting({
    type: text({ description: 'comma list of base64 keys' }),
    secret: true,
    processes: ['engine', 'worker', 'start'],
    meaning:
      'doNotLogPayload keys: base64 of 32 bytes each, comma-separated, current first (the others only decrypt); the same on engines and workers',
    roles: { start: 'default: the key file below' },
  }),
  FLOWHOOK_PAYLOAD_KEY_FILE: setting({
    type: path(),
    defaultText: '`start`: `<data dir>/payload-key`, generated',
    processes: ['engine', 'worker', 'start', 'payload-key'],
    meaning: 'or a 0600 file of them, one a line, current first; not together with `FLOWHOOK_PAYLOAD_KEY`',
    roles: {
      'payload-key': 'the key file to rotate (default: `<data dir>/payload-key`)',
      start: 'default: `<data dir>/payload-key`, generated (a key ring)',
    },
    more: '`flowhook payload-key rotate` puts a new key first (then restart engines and workers).',
  }),
  FLOWHOOK_SECRETS_KEY: setting({
    type: text({ description: 'comma list of base64 keys' }),
    secret: true,
    processes: ['engine', 'start'],
    meaning: 'secret store keys: base64 of 32 bytes, comma-separated, newest first',
    roles: { start: 'default: the key file below' },
  }),
  FLOWHOOK_SECRETS_KEY_FILE: setting({
    type: path(),
    defaultText: '`start`: `<data dir>/secrets-key`, generated',
    processes: ['engine', 'start'],
    meaning:
      'or a file of secret store keys, one a line, newest first; without either, connections cannot be stored or used',
    roles: { start: 'default: `<data dir>/secrets-key`, generated' },
    more: '`secret-store rotate` adds a new key to it.',
  }),
});
