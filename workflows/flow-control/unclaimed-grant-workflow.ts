// What a grant starts when Temporal no longer knows the execution it is for
// (gate-requests.ts, grantStart): it gives a concurrency slot back at once,
// so the gate's next execution need not wait for the holder check, and ends.
import { condition, getExternalWorkflowHandle, setHandler, workflowInfo } from '@temporalio/workflow';
import type { AdmissionGrant } from '../../flow/flow-control-contract.ts';
import { admissionGrantSignal, admissionReleaseSignal } from '../../flow/flow-control-messages.ts';

export async function flowUnclaimedGrantWorkflow(): Promise<void> {
  let grant: AdmissionGrant | undefined;
  setHandler(admissionGrantSignal, (signal) => void (grant = signal));
  // The grant came with the start: it is here in the first task.
  if (!(await condition(() => grant !== undefined, 1000))) return;
  await getExternalWorkflowHandle(grant!.coordinatorId)
    .signal(admissionReleaseSignal, { executionId: workflowInfo().workflowId })
    .catch(() => undefined);
}
