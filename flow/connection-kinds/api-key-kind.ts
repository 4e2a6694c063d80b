// api-key: the secret is sent as it is in one header (X-API-Key unless the
// connection names another).
import { ConnectionType } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import type { ConnectionKind } from './connection-kind.ts';

export const DEFAULT_API_KEY_HEADER = 'X-API-Key';
const HEADER_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Headers the HTTP client or the request's framing own: a key there would be lost or break the request. */
const FORBIDDEN_KEY_HEADERS = new Set([
  'host',
  'content-length',
  'content-type',
  'transfer-encoding',
  'connection',
  'cookie',
  'te',
  'upgrade',
  'idempotency-key',
]);

export const apiKeyKind: ConnectionKind<ConnectionType.API_KEY> = {
  type: ConnectionType.API_KEY,
  name: 'api-key',
  secretName: 'API key',
  settings: [
    {
      name: 'headerName',
      help: `the header that carries the key (default ${DEFAULT_API_KEY_HEADER})`,
      default: DEFAULT_API_KEY_HEADER,
    },
  ],
  check({ headerName }) {
    if (headerName && (!HEADER_TOKEN.test(headerName) || FORBIDDEN_KEY_HEADERS.has(headerName.toLowerCase())))
      return [`headerName: "${headerName}" cannot carry a key`];
    return [];
  },
  async authenticate({ settings, secret }) {
    return { [(settings.headerName || DEFAULT_API_KEY_HEADER).toLowerCase()]: secret };
  },
};
