// TLS on the engine's port and on the facade's, and how the engine's clients trust it.
import { setting, settingsGroup } from '../setting.ts';
import { boolean } from '../values/boolean-value.ts';
import { path } from '../values/path-value.ts';

/** The engine's clients: they trust its certificate and may present their own. */
const ENGINE_CLIENTS = ['facade', 'worker', 'cli'] as const;

export const TLS_SETTINGS = settingsGroup('TLS', {
  FLOWHOOK_ENGINE_TLS_CERT: setting({
    type: path(),
    processes: ['engine', 'start'],
    meaning: 'PEM certificate chain: the engine serves TLS 1.2+ (h2 only); unset: h2c',
    roles: { start: 'set: the codec endpoint is https' },
  }),
  FLOWHOOK_ENGINE_TLS_KEY: setting({
    type: path(),
    processes: ['engine'],
    meaning: 'PEM private key of that certificate',
  }),
  FLOWHOOK_ENGINE_TLS_CLIENT_CA: setting({
    type: path(),
    processes: ['engine'],
    meaning: 'PEM CA: mutual TLS — every client must present a certificate from it; its CN names the service account',
  }),
  FLOWHOOK_ENGINE_INSECURE: setting({
    type: boolean(),
    default: false,
    processes: ['engine'],
    meaning:
      '`true` lets the engine (and its codec server) serve cleartext on a non-loopback address (a network you trust)',
  }),
  FLOWHOOK_ENGINE_CA: setting({
    type: path(),
    defaultText: 'system roots',
    processes: ENGINE_CLIENTS,
    meaning: 'PEM CA the clients trust for an `https://` engine (when set, the only one)',
  }),
  FLOWHOOK_ENGINE_CLIENT_CERT: setting({
    type: path(),
    processes: ENGINE_CLIENTS,
    meaning: "the client's PEM certificate, for mutual TLS",
  }),
  FLOWHOOK_ENGINE_CLIENT_KEY: setting({
    type: path(),
    processes: ENGINE_CLIENTS,
    meaning: "the client's PEM private key, for mutual TLS",
  }),
  FLOWHOOK_FACADE_TLS_CERT: setting({
    type: path(),
    processes: ['facade', 'engine'],
    meaning: 'PEM certificate chain: the facade serves HTTPS (the default public URL becomes `https://…`)',
    roles: { engine: 'set: the default public URL is https' },
  }),
  FLOWHOOK_FACADE_TLS_KEY: setting({
    type: path(),
    processes: ['facade'],
    meaning: "PEM private key of the facade's certificate",
  }),
});
