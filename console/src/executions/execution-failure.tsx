// Why an execution failed, first on its page: the step that failed (its
// description, path and kind) and the reason from the execution log. An
// httpRequest step's non-2xx answer is data for the flow, so the step that
// failed is often a later one (a fail step on that status): the steps that
// called with a connection and were answered 401 or 403 are named too, with
// the connection (read from the flow version the execution ran) and a way to
// it — a wrong or expired key is the usual cause of a partner's refusal.
import { Link } from 'react-router';
import { useQuery } from '@connectrpc/connect-query';
import type { GetExecutionResponse } from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { FlowAdminService } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import type { Step } from '../../../proto/gen/flowhook/flow/v1/flow_pb.js';

export function ExecutionFailure({ execution }: { execution: GetExecutionResponse }) {
  const summary = execution.execution!;
  // The first failed line is the step that failed; the steps around it (an if, …) fail after it with it.
  const failed = execution.steps.find((step) => step.status === 'failed');
  const closedBadly = ['FAILED', 'TIMED_OUT', 'TERMINATED'].includes(summary.status);
  const flow = useQuery(
    FlowAdminService.method.getFlow,
    { company: summary.company, name: summary.flowName, version: summary.flowVersion },
    { enabled: failed !== undefined && summary.flowName !== '' && summary.flowVersion > 0, staleTime: Infinity },
  );
  if (!failed && !closedBadly) return null;
  const steps = flow.data?.definition?.steps ?? [];
  const connectionAt = (path: string) => {
    const step = stepAt(steps, path);
    return step?.kind.case === 'httpRequest' ? step.kind.value.connection : '';
  };
  const connection = failed ? connectionAt(failed.path) : '';
  const refused = refusedCalls(execution).map((call) => ({ ...call, connection: connectionAt(call.path) }));
  return (
    <section aria-labelledby="failure-title" className="failure card">
      <h2 id="failure-title">Why it failed</h2>
      {failed ? (
        <>
          <p>
            Step <strong>{failed.description || failed.name || failed.path}</strong> (<code>{failed.path}</code>,{' '}
            {failed.type}) failed
            {failed.note ? ':' : '.'}
          </p>
          {failed.note ? <p className="failure-reason">{failed.note}</p> : null}
          {connection ? (
            <ConnectionHint company={summary.company} connection={connection} what="The step calls with connection" />
          ) : null}
          {refused.map((call) => (
            <div key={call.path}>
              <p>
                Step <strong>{call.description}</strong> (<code>{call.path}</code>) was answered{' '}
                <strong>HTTP {call.status}</strong>
                {call.connection ? (
                  <>
                    {' '}
                    with connection <strong>{call.connection}</strong>: the connection&apos;s credentials were refused.
                  </>
                ) : (
                  ': its request was refused.'
                )}
              </p>
              {call.connection ? <ConnectionHint company={summary.company} connection={call.connection} /> : null}
            </div>
          ))}
        </>
      ) : (
        <p>
          The execution{' '}
          {summary.status === 'TIMED_OUT' ? 'timed out' : summary.status === 'TERMINATED' ? 'was terminated' : 'failed'}{' '}
          outside its steps.
        </p>
      )}
    </section>
  );
}

function ConnectionHint({ company, connection, what }: { company: string; connection: string; what?: string }) {
  return (
    <p>
      {what ? (
        <>
          {what} <strong>{connection}</strong>.{' '}
        </>
      ) : null}
      <Link to={`/connections/${encodeURIComponent(company)}?name=${encodeURIComponent(connection)}`}>
        Check connection {connection}
      </Link>
    </p>
  );
}

/** httpRequest steps whose answer (their output's status) was 401 or 403. */
function refusedCalls(execution: GetExecutionResponse): { path: string; description: string; status: number }[] {
  const outputs = new Map(execution.stepOutputs.map((output) => [output.name, output.outputJson]));
  const refused = [];
  for (const step of execution.steps) {
    if (step.type !== 'httpRequest' || !step.name || !outputs.has(step.name)) continue;
    const status = statusOf(outputs.get(step.name)!);
    if (status === 401 || status === 403)
      refused.push({ path: step.path, description: step.description || step.name, status });
  }
  return refused;
}

function statusOf(outputJson: string): number | undefined {
  try {
    const output: unknown = JSON.parse(outputJson);
    return output && typeof output === 'object' && 'status' in output && typeof output.status === 'number'
      ? output.status
      : undefined;
  } catch {
    return undefined;
  }
}

/** The step at an execution-log path: `steps[2]`, `steps[1].if.then[0]`, … */
export function stepAt(steps: Step[], path: string): Step | undefined {
  const parts = /^steps\[(\d+)\]((?:\.if\.(?:then|else)\[\d+\])*)$/.exec(path);
  if (!parts) return undefined;
  let step = steps[Number(parts[1])];
  for (const [, branch, index] of parts[2]!.matchAll(/\.if\.(then|else)\[(\d+)\]/g)) {
    if (step?.kind.case !== 'if') return undefined;
    step = step.kind.value[branch as 'then' | 'else'][Number(index)];
  }
  return step;
}
