// The flow interpreter workflow: one execution of one published flow version.
// Deterministic and I/O-free; outbound calls are activities.
import {
  ApplicationFailure,
  allHandlersFinished,
  condition,
  patched,
  setHandler,
  uuid4,
  workflowInfo,
} from '@temporalio/workflow';
import type { FormulaContext } from '../flow/formula/index.ts';
import { CallbackInbox, type CallbackRefusal } from './interpreter/callback-inbox.ts';
import { ExecutionLog } from './interpreter/execution-log.ts';
import { runSteps } from './interpreter/run-steps.ts';
import { StepFailure } from '../flow/step-failure.ts';
import { SyncWindow } from './interpreter/sync-window.ts';
import { EXACT_VALUES_PATCH, triggerOutputs } from '../flow/trigger-outputs.ts';
import { recordOutcomeWhenDecided, SYNC_WINDOW_TIMER_SUMMARY } from './interpreter/outcome-attribute.ts';
import { callbackPlaceholder } from '../flow/callback-placeholders.ts';
import {
  callbackUpdate,
  executionLogQuery,
  flowAnswerQuery,
  stepOutputsQuery,
  webhookAnswerQuery,
  webhookResponseUpdate,
} from '../flow/flow-messages.ts';
import { FLOW_FAILED_BEFORE_RESPONSE } from '../flow/index.ts';
import type { FlowExecutionInput, FlowExecutionResult } from '../flow/index.ts';
import { callbackStepsOf, type CallbackStep } from '../flow/steps/callback-steps.ts';
import { passGates, type Admission } from './flow-control/admission.ts';

export async function flowWorkflow(input: FlowExecutionInput): Promise<FlowExecutionResult> {
  const info = workflowInfo();
  const startedAt = info.runStartTime.getTime();
  const window = new SyncWindow(
    input.trigger.responseMode,
    input.trigger.defaultResponse,
    startedAt + input.trigger.syncTimeoutMs,
  );
  const log = new ExecutionLog(input.trigger.doNotLogPayload);
  log.recordTrigger(input.trigger, new Date(startedAt).toISOString());

  // Sync mode: the engine waits on this update (Update-With-Start). It returns
  // when a respond step answers, the flow ends or fails, or the window times out.
  setHandler(webhookResponseUpdate, async () => {
    if (window.isOpen) {
      const decided = await condition(() => !window.isOpen, Math.max(1, window.deadline - Date.now()), {
        summary: SYNC_WINDOW_TIMER_SUMMARY,
      });
      if (!decided) window.timeOut();
    }
    return window.answer();
  });
  // Validator and handler both check: a replay runs only the handler, with the updates accepted back then.
  const callbackSteps = callbackStepsOf(input.steps);
  const inbox = new CallbackInbox(new Map([...callbackSteps].map(([name, step]) => [name, step.responseStatus])));
  setHandler(
    callbackUpdate,
    (delivery) => {
      refuseCallback(inbox.refusal(delivery));
      return inbox.deliver(delivery, new Date(Date.now()).toISOString());
    },
    { validator: (delivery) => refuseCallback(inbox.refusal(delivery)) },
  );
  setHandler(executionLogQuery, () => log.entries);
  setHandler(webhookAnswerQuery, () => window.answer());
  setHandler(flowAnswerQuery, () => ({ company: input.company, caller: input.caller, ...window.flowAnswer() }));

  const context: FormulaContext = {
    // Executions started before exact payload values replay with the values they had (trigger-outputs.ts);
    // the engine says so in the input since, so no patch marker is needed.
    Trigger: triggerOutputs(input, { exactValues: input.exactValues ?? patched(EXACT_VALUES_PATCH) }),
    Variables: {},
    Steps: {},
    Execution: { Id: info.workflowId, StartedAt: new Date(startedAt).toISOString() },
    Company: { Name: input.company },
    ...callbackUrls(callbackSteps),
  };
  // A query adds nothing to the history, so executions started before it existed replay unchanged.
  setHandler(stepOutputsQuery, () => context.Steps);

  const outcomeRecorded = recordOutcomeWhenDecided(window);
  let admission: Admission | undefined;
  try {
    // Flow control: the steps wait until the gates let this execution pass (the sync window keeps counting).
    admission = await passGates(input.control, input);
    await runSteps(input.steps, 'steps', {
      input,
      executionId: info.workflowId,
      window,
      log,
      context,
      callbacks: inbox,
    });
    inbox.close();
  } catch (error) {
    inbox.close();
    await admission?.release();
    const failure =
      error instanceof StepFailure ? error : new StepFailure(error instanceof Error ? error.message : String(error));
    window.fail({
      type: failure.failureType,
      message: failure.publicMessage ?? 'the flow failed (the reason is in the execution log)',
    });
    await outcomeRecorded;
    await condition(allHandlersFinished);
    // An ApplicationFailure fails the execution; any other error would retry the workflow task forever.
    // The worker logs a failed execution's message in clear, and a step's reason may quote the
    // payload: for doNotLogPayload flows the reason travels only in the (encrypted) details.
    const hidden = input.trigger.doNotLogPayload;
    throw ApplicationFailure.create({
      type: failure.failureType ?? FLOW_FAILED_BEFORE_RESPONSE,
      message: hidden
        ? 'The flow failed (reason withheld: doNotLogPayload; it is in the encrypted failure details)'
        : failure.message,
      details: hidden ? [failure.message] : undefined,
      nonRetryable: true,
    });
  }
  await admission?.release();
  window.end();
  await outcomeRecorded;
  await condition(allHandlersFinished);
  return { outcome: window.outcome, response: window.answer(), steps: log.entries };
}

function refuseCallback(refusal: CallbackRefusal | undefined): void {
  if (refusal) throw ApplicationFailure.create({ ...refusal, nonRetryable: true });
}

/**
 * `Callbacks.<name>.url` for each waitForCallback step without a key: a placeholder, never the
 * URL (its token must stay out of the history). One random nonce per execution, drawn only when
 * the flow has such a step, so executions of other flows replay with the same random sequence.
 */
function callbackUrls(steps: ReadonlyMap<string, CallbackStep>): Pick<FormulaContext, 'Callbacks'> {
  const withUrl = [...steps.values()].filter((step) => !step.keyed);
  if (withUrl.length === 0) return {};
  const nonce = uuid4().replace(/-/g, '');
  return {
    Callbacks: Object.fromEntries(withUrl.map((step) => [step.name, { url: callbackPlaceholder(nonce, step.name) }])),
  };
}
