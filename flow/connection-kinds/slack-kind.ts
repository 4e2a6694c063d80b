// slack: a Slack incoming webhook. Its URL is the credential (anyone who has it
// may post to the channel), so the whole URL is the connection's secret.
import { ConnectionType } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { notForRequests, webhookUrlProblems } from './alert-channel.ts';
import type { ConnectionKind } from './connection-kind.ts';

export const slackKind: ConnectionKind<ConnectionType.SLACK> = {
  type: ConnectionType.SLACK,
  name: 'slack',
  secretName: 'webhook URL',
  purpose: 'alerts',
  settings: [],
  checkSecret: (secret) => webhookUrlProblems(secret, 'webhook URL'),
  authenticate: notForRequests('Slack'),
};
