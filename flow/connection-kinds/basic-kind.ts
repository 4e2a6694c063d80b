// basic: `Authorization: Basic` with the connection's user name and the secret
// as the password.
import { ConnectionType } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import type { ConnectionKind } from './connection-kind.ts';
import { basicCredentials } from './http-basic.ts';

export const basicKind: ConnectionKind<ConnectionType.BASIC> = {
  type: ConnectionType.BASIC,
  name: 'basic',
  secretName: 'password',
  settings: [{ name: 'username', required: true, help: 'the user name' }],
  check({ username }) {
    return username.includes(':') ? ['username: must not contain ":" (Basic authentication splits on it)'] : [];
  },
  async authenticate({ settings, secret }) {
    return { authorization: `Basic ${basicCredentials(settings.username, secret)}` };
  },
};
