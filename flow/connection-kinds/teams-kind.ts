// teams: a Microsoft Teams workflow webhook ("Post to a channel when a webhook
// request is received"), which takes an Adaptive Card. Its URL carries its
// signature (`sig=`), so the whole URL is the connection's secret.
import { ConnectionType } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { notForRequests, webhookUrlProblems } from './alert-channel.ts';
import type { ConnectionKind } from './connection-kind.ts';

export const teamsKind: ConnectionKind<ConnectionType.TEAMS> = {
  type: ConnectionType.TEAMS,
  name: 'teams',
  secretName: 'workflow webhook URL',
  purpose: 'alerts',
  settings: [],
  checkSecret: (secret) => webhookUrlProblems(secret, 'workflow webhook URL'),
  authenticate: notForRequests('Teams'),
};
