// Gates passed leave the workflow sandbox through a sink, like steps
// (interpreter/step-metrics.ts): the worker counts them per flow
// (workflows/metrics/worker-metrics.ts). Not called during replay.
import { proxySinks, type Sinks } from '@temporalio/workflow';
import type { GateKind } from '../../flow/flow-control-contract.ts';

export interface FlowControlSinks extends Sinks {
  flowhookFlowControl: {
    /** `queued`: the execution waited behind others (or, at a pause gate, for resume). */
    gatePassed(company: string, flowName: string, gate: GateKind, queued: boolean): void;
  };
}

const { flowhookFlowControl } = proxySinks<FlowControlSinks>();

export function reportGatePassed(flow: { company: string; flowName: string }, gate: GateKind, queued: boolean): void {
  flowhookFlowControl.gatePassed(flow.company, flow.flowName, gate, queued);
}
