// The gates an execution passes (flow control's concurrency, throttle and pause), as the engine
// decides them when the call arrives and the execution's input carries them. Its own file so that
// the flow's input (flow-contract.ts) and flow control's contract (flow-control-contract.ts), which
// builds on that input, both name it without importing each other.

export type GateKind = 'pause' | 'throttle' | 'concurrency';

/**
 * One gate an execution passes before its steps run; gates are passed in the order pause, throttle,
 * concurrency. `summary` is what the Temporal UI shows for the coordinator (names and labels only).
 */
export type AdmissionGate =
  | { kind: 'pause'; coordinatorId: string; summary: string }
  | { kind: 'throttle'; coordinatorId: string; summary: string; keyLabel: string; perSecond: number; burst: number }
  | { kind: 'concurrency'; coordinatorId: string; summary: string; keyLabel: string; limit: number };

/** The flow control of one execution, decided by the engine when the call arrived. */
export interface ExecutionControl {
  gates: AdmissionGate[];
  /**
   * Set for every execution started since gates hand executions on and wake them (admission.ts);
   * absent in executions started before, which replay the gate-by-gate way they ran. (A flag in
   * the input, not a Temporal patch: a patch costs each execution a marker and a search attribute
   * update.)
   */
  handOn?: true;
}
