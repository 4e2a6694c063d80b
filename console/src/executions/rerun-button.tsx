// Re-run one closed execution: a new execution with the original's exact
// payload and caller, on the flow version published now (editors). The page
// then links to the new execution.
import { Link } from 'react-router';
import { useMutation } from '@connectrpc/connect-query';
import { ExecutionService, type ExecutionSummary } from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { messageOf } from '../rpc/transport.ts';
import { mayIn, useSession } from '../session/session.tsx';

export function RerunButton({ execution }: { execution: ExecutionSummary }) {
  const { person } = useSession();
  const rerun = useMutation(ExecutionService.method.rerunExecution);
  if (!mayIn(person, execution.company, 'editor')) return null;
  const started = rerun.data?.rerun;
  return (
    <>
      <button
        type="button"
        disabled={execution.status === 'RUNNING' || rerun.isPending}
        title={execution.status === 'RUNNING' ? 'A running execution cannot be re-run' : undefined}
        onClick={() => rerun.mutate({ executionId: execution.executionId, company: execution.company })}
      >
        Re-run
      </button>
      <p role="status" className="inline-status">
        {started ? (
          <>
            Re-run started: <Link to={`/executions/${encodeURIComponent(started.executionId)}`}>{started.executionId}</Link> (v{started.flowVersion})
          </>
        ) : null}
        {rerun.isError ? <span className="problem">Not re-run: {messageOf(rerun.error)}</span> : null}
      </p>
    </>
  );
}
