/**
 * The no-worker rules, watched by the engines themselves: an alert workflow
 * runs on a worker, so it cannot notice that no worker polls — the very
 * moment it would have to speak, nothing runs it. Every engine runs this
 * watch each FLOWHOOK_ALERT_EVALUATION_INTERVAL, and one at a time does the
 * work: a round holds a PostgreSQL advisory lock (transaction-scoped, taken
 * with try, so a second engine skips its round instead of waiting) while it
 * asks Temporal once for the task queue's pollers and steps each rule's state
 * machine (flow/alert-state.ts) on the rule's row. The row is the state here,
 * so whichever engine holds the lock next goes on from it: a rule fires once
 * and resolves once however many engines run. A channel that refuses the
 * message leaves the row as it was: the next round tries again.
 */
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { stepAlert, type AlertStateName } from '../../../flow/alert-state.ts';
import { startPeriodicTask, type PeriodicTask } from '../../infrastructure/housekeeping/periodic-task.ts';
import { AlertRule } from '../../infrastructure/storage/entities.ts';
import { pollerTimes, workerSeen, type AlertCountDeps } from './alert-counts.ts';
import { notifyTransition, type AlertNotifyDeps } from './alert-notify.ts';

/** The advisory lock's key: `hashtext` of a fixed name, the same in every engine. */
const LOCK_NAME = 'flowhook:no-worker-alerts';

export interface NoWorkerWatchOptions {
  orm: MikroORM;
  logger: Logger;
  counts: AlertCountDeps;
  notify: AlertNotifyDeps;
  intervalMs: number;
}

export function startNoWorkerWatch(options: NoWorkerWatchOptions): PeriodicTask {
  return startPeriodicTask(
    () =>
      watchOnce(options).catch((error: unknown) =>
        options.logger.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          'no-worker alerts: round failed',
        ),
      ),
    options.intervalMs,
  );
}

/** One round; false when another engine holds the lock. */
export async function watchOnce(options: NoWorkerWatchOptions): Promise<boolean> {
  const em = options.orm.em.fork();
  return em.transactional(async (tx) => {
    const [lock] = await tx
      .getConnection()
      .execute<{ locked: boolean }[]>(
        `select pg_try_advisory_xact_lock(hashtext(?)) as locked`,
        [LOCK_NAME],
        'all',
        tx.getTransactionContext(),
      );
    if (!lock?.locked) return false;
    const rules = await tx.find(AlertRule, { condition: 'no-worker' }, { populate: ['company'] });
    if (rules.length === 0) return true;
    const now = new Date();
    // One question to Temporal a round, whatever the number of rules.
    const times = await pollerTimes(options.counts);
    for (const rule of rules) {
      const count = workerSeen(times, rule.windowSeconds * 1000, now) ? 0 : 1;
      const step = stepAlert({ state: rule.state as AlertStateName, incidents: rule.incidents }, count, 1);
      if (!step.notify) continue;
      try {
        await notifyTransition(options.notify, tx, rule, step.notify);
      } catch (error) {
        options.logger.warn(
          {
            alert: rule.name,
            company: rule.company.name,
            reason: error instanceof Error ? error.message : String(error),
          },
          'no-worker alert not delivered; tried again next round',
        );
      }
    }
    return true;
  });
}
