// bearer: the secret is a token sent as `Authorization: Bearer`.
import { ConnectionType } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import type { ConnectionKind } from './connection-kind.ts';

export const bearerKind: ConnectionKind<ConnectionType.BEARER> = {
  type: ConnectionType.BEARER,
  name: 'bearer',
  secretName: 'token',
  settings: [],
  async authenticate({ secret }) {
    return { authorization: `Bearer ${secret}` };
  },
};
