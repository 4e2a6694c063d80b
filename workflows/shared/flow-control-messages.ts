// The messages of flow control (flow-control-contract.ts), each defined once:
// coordinators register their handlers with these definitions, executions and
// the engine send with them. Like flow-messages.ts, not re-exported by
// ./index.ts (the define functions come from the workflow SDK); the names are
// on the wire, in running coordinators and recorded histories.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { AdmissionGrant, AdmissionRequest, CollectedAnswer, CollectedCall, GateState } from './flow-control-contract.ts';

/** Execution → gate coordinator (signal-with-start): let me pass. */
export const admissionRequestSignal = defineSignal<[AdmissionRequest]>('flowhookAdmissionRequest');

/** Execution → concurrency coordinator: my slot is free (or: I no longer wait). */
export const admissionReleaseSignal = defineSignal<[{ executionId: string }]>('flowhookAdmissionRelease');

/** Coordinator → execution: pass. */
export const admissionGrantSignal = defineSignal<[AdmissionGrant]>('flowhookAdmissionGrant');

/** Engine → a flow's pause gate (signal-with-start), from `flowhook flow pause|resume`. */
export const flowPausedSignal = defineSignal<[{ paused: boolean }]>('flowhookFlowPaused');

/** Engine → collector (update-with-start): add this call to the open window; answers with the execution it joins. */
export const collectCallUpdate = defineUpdate<CollectedAnswer, [CollectedCall]>('flowhookCollect');

/** What a gate coordinator holds now: who waits, who runs. */
export const gateStateQuery = defineQuery<GateState, []>('flowhookGateState');
