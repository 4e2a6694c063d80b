// Sends an alert rule's notifications through its connection, as the engine
// composed them (alert-messages.ts). A state change is sent once: the rule's
// row remembers the last one sent (`<incident>:<state>`), so a send the
// workflow tries again after it got through (an engine killed before it
// answered, a retried activity) is answered "sent before"; one that did not
// get through is sent again with the same id (webhook-id, Message-ID), which a
// receiver may use to drop a repeat. The connection's secret is decrypted for
// this send only, and the company's egress list applies as it does to flows.
import type { EntityManager } from '@mikro-orm/postgresql';
import { parseEgressRules, type EgressPolicy } from '../../../flow/egress-policy.ts';
import type { AlertStateName } from '../../../flow/alert-state.ts';
import { FailedPreconditionError, NotFoundError, UnavailableError } from '../../errors.ts';
import { shellArg } from '../../../common/shell-words.ts';
import type { SecretKeyring } from '../../infrastructure/secret-store/secret-keyring.ts';
import type { AlertRule } from '../../infrastructure/storage/entities.ts';
import type { AlertMessage } from '../../infrastructure/notify/alert-message.ts';
import { sendToChannel } from '../../infrastructure/notify/notify-channel.ts';
import { NotifyFailed } from '../../infrastructure/notify/notify-errors.ts';
import { resolveConnection } from '../connections/connections.ts';
import { composeAlert, type MessageKind } from './alert-messages.ts';

export interface AlertNotifyDeps {
  keyring: SecretKeyring;
  /** The operator's egress policy (FLOWHOOK_EGRESS_ALLOW, flowhook's own ports). */
  egress: EgressPolicy;
  sendTimeoutMs: number;
  taskQueue: string;
  /** Where the console is, for the link in each message; undefined without a console. */
  consoleUrl: () => string | undefined;
}

export interface Transition {
  state: AlertStateName;
  incident: number;
  count: number;
}

/** Whether it was sent now; false when this very notification had been sent before. */
export async function notifyTransition(
  deps: AlertNotifyDeps,
  em: EntityManager,
  rule: AlertRule,
  transition: Transition,
): Promise<boolean> {
  const key = `${transition.incident}:${transition.state}`;
  if (rule.lastSent === key) return false;
  await send(deps, em, rule, { ...transition });
  rule.state = transition.state;
  rule.incidents = Math.max(rule.incidents, transition.incident);
  rule.lastCount = transition.count;
  rule.lastNotifiedAt = new Date();
  rule.lastSent = key;
  await em.flush();
  return true;
}

/** Sends a test message now; answers its title. */
export async function notifyTest(deps: AlertNotifyDeps, em: EntityManager, rule: AlertRule): Promise<string> {
  return (await send(deps, em, rule, { state: 'test' })).title;
}

async function send(
  deps: AlertNotifyDeps,
  em: EntityManager,
  rule: AlertRule,
  kind: MessageKind,
): Promise<AlertMessage> {
  await em.populate(rule, ['company']);
  const company = rule.company;
  const connection = await resolveConnection(em, deps.keyring, company.name, rule.connection).catch(
    (error: unknown) => {
      // The rule stays (its workflow must not end): what is missing is its channel.
      if (!(error instanceof NotFoundError)) throw error;
      throw new FailedPreconditionError(
        `alert "${rule.name}": its connection "${rule.connection}" no longer exists; create it again (flowhook connection set ${shellArg(company.name)} ${shellArg(rule.connection)} --type …) or choose another (flowhook alert set … --connection <name>)`,
      );
    },
  );
  const message = composeAlert(
    { ...rule, company: company.name, flow: rule.flow ?? null, reason: rule.reason ?? null },
    kind,
    { consoleUrl: deps.consoleUrl(), taskQueue: deps.taskQueue, now: new Date() },
  );
  const policy: EgressPolicy = {
    ...deps.egress,
    ...(company.egressAllow && {
      company: {
        name: company.name,
        allow: parseEgressRules(company.egressAllow.join(','), `the egress list of company "${company.name}"`),
      },
    }),
  };
  try {
    await sendToChannel(connection, message, { policy, timeoutMs: deps.sendTimeoutMs });
  } catch (error) {
    if (!(error instanceof NotifyFailed)) throw error;
    const said = `alert "${rule.name}": ${error.message}`;
    throw error.retryable ? new UnavailableError(said) : new FailedPreconditionError(said);
  }
  return message;
}
