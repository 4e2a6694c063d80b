// Stack traces inside workflow code are off by default (they cost about half
// of a short flow's worker CPU) and come back with
// FLOWHOOK_WORKFLOW_STACK_TRACES=true; flow failures name step and reason either way.
import test from 'ava';
import { WorkflowFailedError } from '@temporalio/client';
import { startStack, type TestStack } from '../support/stack.ts';
import { callWebhook, createTenant, deployFlow, flow } from '../support/webhook-helpers.ts';

async function failureOf(stack: TestStack): Promise<Error> {
  const tenant = await createTenant(stack);
  const { secret } = await deployFlow(
    stack,
    flow(tenant.company, 'failing', { activity: 'stack.fail' }, [
      { fail: { description: 'Refuse', message: 'not today' } },
    ]),
  );
  const answer = await callWebhook(stack, {
    company: tenant.company,
    activity: 'stack.fail',
    secret,
    auth: tenant.auth,
  });
  const error = await stack.temporal.workflow
    .getHandle(answer.executionId!)
    .result()
    .then(
      () => undefined,
      (failure: unknown) => failure,
    );
  if (!(error instanceof WorkflowFailedError) || !(error.cause instanceof Error))
    throw new Error(`the flow did not fail as expected: ${String(error)}`);
  return error.cause;
}

const failingFlow = test.macro(async (t, env: Record<string, string>, frames: boolean) => {
  const stack = await startStack({ env });
  try {
    const failure = await failureOf(stack);
    t.regex(failure.message, /steps\[0\] fail "Refuse": not today/);
    t.is(/\n\s+at /.test(failure.stack ?? ''), frames);
  } finally {
    await stack.close();
  }
});

test('by default a flow failure carries its step and reason but no interpreter frames', failingFlow, {}, false);
test(
  'FLOWHOOK_WORKFLOW_STACK_TRACES=true brings the frames back',
  failingFlow,
  { FLOWHOOK_WORKFLOW_STACK_TRACES: 'true' },
  true,
);
