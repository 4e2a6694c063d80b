// One alert rule's evaluation, as a long-running workflow (id
// `alert:<company id>:<name>`, started by `alert set`, ended by `alert
// delete`): each round the engine counts what the rule watches, the state
// machine (flow/alert-state.ts) decides whether that is news, and only then
// the engine is asked to notify — once when the rule fires, once when it
// resolves. Its state lives in Temporal, so an engine or a worker that dies
// between two rounds changes nothing: the next round goes on from the same
// state, and a notification tried again keeps its id. The worker passes the
// engine only the rule, the state and the count, never text. The run
// continues as new every ROUNDS_PER_RUN rounds to bound its history.
import { continueAsNew, log, proxyActivities, sleep, workflowInfo } from '@temporalio/workflow';
import type { AlertWorkflowInput } from '../../flow/alert-contract.ts';
import { stepAlert } from '../../flow/alert-state.ts';
import type { AlertActivities, AlertEvaluation } from './alert-activities.ts';

/** About ten history events a round: 400 rounds stay far below Temporal's limits. */
const ROUNDS_PER_RUN = 400;
/** The wait after a round that could not count (the engine names the interval otherwise). */
const FALLBACK_INTERVAL = '30 seconds';

const { evaluateAlert } = proxyActivities<AlertActivities>({
  startToCloseTimeout: '1 minute',
  // An engine outage is waited out (the activity's transport waits for it); a round never fails the rule.
  retry: { initialInterval: '1 second', maximumInterval: '30 seconds' },
});
const { sendAlert } = proxyActivities<AlertActivities>({
  startToCloseTimeout: '2 minutes',
  // A channel that stays down for this long loses the message rather than holding the rule's state back.
  retry: { initialInterval: '2 seconds', maximumInterval: '1 minute', maximumAttempts: 12 },
});

export async function flowhookAlertWorkflow(input: AlertWorkflowInput): Promise<void> {
  const rule = { company: input.company, name: input.name, ruleId: input.ruleId };
  let status = input.status;
  for (let round = 0; round < ROUNDS_PER_RUN && !workflowInfo().continueAsNewSuggested; round++) {
    let evaluation: AlertEvaluation | null;
    try {
      evaluation = await evaluateAlert(rule);
    } catch (error) {
      // A count the engine refused for good (it should not): the rule keeps its state and tries next round.
      log.warn('alert not evaluated', { rule: input.name, reason: (error as Error).message });
      await sleep(FALLBACK_INTERVAL);
      continue;
    }
    // The rule was deleted (or replaced by another of the same name): nothing left to watch.
    if (evaluation === null) return;
    const step = stepAlert(status, evaluation.count, evaluation.threshold);
    if (step.notify) {
      try {
        const sent = await sendAlert({ ...rule, ...step.notify });
        if (sent === null) return;
      } catch (error) {
        // The channel refused or stayed down: the state moves on all the same, so it is not repeated later.
        log.warn('alert notification not delivered', { rule: input.name, reason: (error as Error).message });
      }
    }
    status = step.status;
    await sleep(evaluation.intervalMs);
  }
  await continueAsNew<typeof flowhookAlertWorkflow>({ ...input, status });
}
