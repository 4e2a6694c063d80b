// Where each process listens and where the others find it.
import { setting, settingsGroup } from '../setting.ts';
import { port } from '../values/port-value.ts';
import { text } from '../values/text-value.ts';
import { url } from '../values/url-value.ts';
import { ownPort } from './own-port.ts';

export const ADDRESS_SETTINGS = settingsGroup('Addresses and ports', {
  FLOWHOOK_FACADE_PORT: ownPort({
    type: port({ freePort: true }),
    default: 7048,
    processes: ['facade', 'engine'],
    meaning: "the OData endpoint's port",
    roles: { engine: 'facade port, for the default public URL' },
  }),
  FLOWHOOK_FACADE_HOST: setting({
    type: text(),
    default: '0.0.0.0',
    defaultText: '`0.0.0.0`; `start`: `127.0.0.1`',
    processes: ['facade', 'start'],
    computedBy: ['start'],
    meaning: 'facade listen address',
    roles: { start: 'default 127.0.0.1; 0.0.0.0 opens the endpoint to the network' },
    more: '`flowhook start` is a local default and listens on loopback until this opens it; a facade run apart is the public door and listens on all interfaces.',
  }),
  FLOWHOOK_ENGINE_PORT: ownPort({
    type: port({ freePort: true }),
    default: 7049,
    processes: ['engine'],
    meaning: 'engine RPC port (HTTP/2: Connect, gRPC, gRPC-Web; h2c, or TLS)',
  }),
  FLOWHOOK_ENGINE_HOST: setting({
    type: text(),
    default: '127.0.0.1',
    processes: ['engine'],
    meaning: 'engine listen address',
    more: 'Without TLS the engine refuses any non-loopback address (`0.0.0.0` included) unless `FLOWHOOK_ENGINE_INSECURE=true`.',
  }),
  FLOWHOOK_ENGINE_URL: setting({
    type: url({ base: true }),
    default: 'http://127.0.0.1:7049',
    defaultText: '`http://127.0.0.1:7049`; `start`: the engine it starts',
    processes: ['facade', 'worker', 'cli', 'start'],
    computedBy: ['start'],
    meaning: 'where facade, worker and CLI reach the engine (`https://…` for TLS)',
    roles: {
      worker: 'where the engine is (record step, connections); its port is refused to flows',
      start: 'where facade and worker reach the engine (default: the engine start runs)',
    },
  }),
  FLOWHOOK_PUBLIC_URL: setting({
    type: url({ base: true }),
    defaultText: '`http://localhost:<facade port>` (`https` with a facade certificate)',
    processes: ['facade', 'engine'],
    meaning: "base URL as callers see it: `@odata.context`, the flow card's Webhook Call URL",
  }),
  FLOWHOOK_INSTANCE: setting({
    type: text({ pattern: /^[A-Za-z0-9._~-]+$/, description: 'one URL path segment (letters, digits, . _ ~ -)' }),
    default: 'BC',
    processes: ['facade', 'engine'],
    meaning: 'the `{instance}` path segment',
  }),
});
