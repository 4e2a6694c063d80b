// What alerts need from the engine beyond the database: Temporal (the rules'
// workflows, the counts), the secret store (connection secrets), and the
// alert settings.
import type { Client } from '@temporalio/client';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { EgressPolicy } from '../../../flow/egress-policy.ts';
import type { SecretKeyring } from '../../infrastructure/secret-store/secret-keyring.ts';
import type { AlertCountDeps } from './alert-counts.ts';
import type { AlertNotifyDeps } from './alert-notify.ts';
import type { AlertWorkflowDeps } from './alert-workflows.ts';

export interface AlertSettings {
  /** FLOWHOOK_ALERT_EVALUATION_INTERVAL. */
  evaluationIntervalMs: number;
  /** FLOWHOOK_ALERT_SEND_TIMEOUT. */
  sendTimeoutMs: number;
  /** FLOWHOOK_EGRESS_ALLOW and flowhook's own ports, as the engine knows them. */
  egress: EgressPolicy;
  namespace: string;
  /** The console's base URL for links, once it listens (FLOWHOOK_CONSOLE_PUBLIC_URL, or its own address). */
  consoleUrl: () => string | undefined;
}

export interface AlertDeps {
  orm: MikroORM;
  temporal: Client;
  taskQueue: string;
  keyring: SecretKeyring;
  alerts: AlertSettings;
}

export function alertParts(deps: AlertDeps): {
  counts: AlertCountDeps;
  notify: AlertNotifyDeps;
  workflows: AlertWorkflowDeps;
} {
  return {
    counts: { temporal: deps.temporal, taskQueue: deps.taskQueue, namespace: deps.alerts.namespace },
    notify: {
      keyring: deps.keyring,
      egress: deps.alerts.egress,
      sendTimeoutMs: deps.alerts.sendTimeoutMs,
      taskQueue: deps.taskQueue,
      consoleUrl: deps.alerts.consoleUrl,
    },
    workflows: { temporal: deps.temporal, taskQueue: deps.taskQueue },
  };
}
