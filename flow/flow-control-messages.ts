// The messages of flow control (flow-control-contract.ts), each defined once:
// coordinators register their handlers with these definitions, executions and
// the engine send with them. Like flow-messages.ts, not re-exported by
// ./index.ts (the define functions come from the workflow SDK); the names are
// on the wire, in running coordinators and recorded histories.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type {
  AdmissionGrant,
  AdmissionRequest,
  CollectedAnswer,
  CollectedCall,
  GateBacklog,
  GateState,
  QueuedExecution,
} from './flow-control-contract.ts';

/** Execution → gate coordinator (signal-with-start): let me pass. */
export const admissionRequestSignal = defineSignal<[AdmissionRequest]>('flowhookAdmissionRequest');

/** Execution → its gates' coordinators: my slot is free (or: I no longer wait). */
export const admissionReleaseSignal = defineSignal<[{ executionId: string }]>('flowhookAdmissionRelease');

/** Last gate's coordinator → execution (signal-with-start, which wakes an execution started with a delay): pass. */
export const admissionGrantSignal = defineSignal<[AdmissionGrant]>('flowhookAdmissionGrant');

/** Engine → a flow's pause gate (signal-with-start), from `flowhook flow pause|resume`. */
export const flowPausedSignal = defineSignal<[{ paused: boolean }]>('flowhookFlowPaused');

/** Engine → collector (update-with-start): add this call to the open window; answers with the execution it joins. */
export const collectCallUpdate = defineUpdate<CollectedAnswer, [CollectedCall]>('flowhookCollect');

/** What a gate coordinator holds now: who waits, who runs. */
export const gateStateQuery = defineQuery<GateState, []>('flowhookGateState');

/** How many executions wait at a gate: the engine's cap on waiting calls asks it. */
export const gateBacklogQuery = defineQuery<GateBacklog, []>('flowhookGateBacklog');

/** Gate coordinator → one of its pages: hand your entries back. */
export const gatePageTakeSignal = defineSignal<[]>('flowhookGatePageTake');

/**
 * Coordinator (its page-writing local activity) → a page it already started: keep these too. The
 * local activity that writes a page runs again when the workflow task that ran it fails (Temporal
 * retries the task, and the retry writes the page from a tail that grew meanwhile): the page then
 * holds the union, so no entry of the larger tail is lost.
 */
export const gatePageAddEntriesSignal = defineSignal<[{ entries: QueuedExecution[] }]>('flowhookGatePageAddEntries');

/** How many executions a page holds (operators, tests). */
export const gatePageCountQuery = defineQuery<number, []>('flowhookGatePageCount');

/** Page → its gate's coordinator: the entries it kept, in order. */
export const gatePageEntriesSignal =
  defineSignal<[{ pageId: string; entries: QueuedExecution[] }]>('flowhookGatePageEntries');
