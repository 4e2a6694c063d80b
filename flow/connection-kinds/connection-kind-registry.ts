// The connection kinds: one module per value of the proto's ConnectionType.
// This list drives the engine's checks and what it stores (connection-check.ts,
// engine/domain/connections/), the worker's request authentication
// (workflows/outbound/connection-credentials.ts) and the CLI's `--type`
// choices and options (bin/cli/connection-commands.ts). Its type has a member
// per enum value, so a new proto value does not compile until its module is
// listed here. Listed in enum order, the order the CLI names them in.
import { ConnectionType } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { apiKeyKind } from './api-key-kind.ts';
import { basicKind } from './basic-kind.ts';
import { bearerKind } from './bearer-kind.ts';
import type { ConnectionKind } from './connection-kind.ts';
import { oauth2ClientCredentialsKind } from './oauth2-client-credentials-kind.ts';
import { slackKind } from './slack-kind.ts';
import { smtpKind } from './smtp-kind.ts';
import { teamsKind } from './teams-kind.ts';
import { webhookKind } from './webhook-kind.ts';

type KnownConnectionType = Exclude<ConnectionType, ConnectionType.UNSPECIFIED>;

const KINDS: { readonly [T in KnownConnectionType]: ConnectionKind<T> } = Object.freeze({
  [ConnectionType.API_KEY]: apiKeyKind,
  [ConnectionType.BASIC]: basicKind,
  [ConnectionType.BEARER]: bearerKind,
  [ConnectionType.OAUTH2_CLIENT_CREDENTIALS]: oauth2ClientCredentialsKind,
  [ConnectionType.SLACK]: slackKind,
  [ConnectionType.TEAMS]: teamsKind,
  [ConnectionType.WEBHOOK]: webhookKind,
  [ConnectionType.SMTP]: smtpKind,
});

export const CONNECTION_KINDS: readonly ConnectionKind[] = Object.freeze(Object.values(KINDS));

export function connectionKind(type: ConnectionType): ConnectionKind | undefined {
  return CONNECTION_KINDS.find((kind) => kind.type === type);
}

/** The kind a name (the CLI's `--type`, the stored name) stands for, in any letter case. */
export function connectionKindNamed(name: string): ConnectionKind | undefined {
  return CONNECTION_KINDS.find((kind) => kind.name === name.toLowerCase());
}
