// Re-run one closed execution: a new execution with the original's exact
// payload and caller, on the flow version published now (editors). The page
// then links to the new execution.
//
// An execution that does not log its payload re-runs on another version only
// at an admin's word: that version's steps would get the payload, and an
// editor publishes versions. So an editor is offered its own version, and told
// why (the engine refuses the other; RerunExecution).
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
  const ownVersionOnly = execution.payloadWithheld && !mayIn(person, execution.company, 'admin');
  return (
    <>
      <button
        type="button"
        disabled={execution.status === 'RUNNING' || rerun.isPending}
        title={
          execution.status === 'RUNNING'
            ? 'A running execution cannot be re-run'
            : ownVersionOnly
              ? `This flow does not log its payload: only admins of ${execution.company} may re-run it on another version, whose steps would get the payload`
              : undefined
        }
        onClick={() =>
          rerun.mutate({ executionId: execution.executionId, company: execution.company, sameVersion: ownVersionOnly })
        }
      >
        {ownVersionOnly ? `Re-run on its own version (v${execution.flowVersion})` : 'Re-run'}
      </button>
      <p role="status" className="inline-status">
        {started ? (
          <>
            Re-run started:{' '}
            <Link to={`/executions/${encodeURIComponent(started.executionId)}`}>{started.executionId}</Link> (v
            {started.flowVersion})
          </>
        ) : ownVersionOnly ? (
          <span className="muted">
            Does not log its payload: another version needs an admin of {execution.company}.
          </span>
        ) : null}
        {rerun.isError ? <span className="problem">Not re-run: {messageOf(rerun.error)}</span> : null}
      </p>
    </>
  );
}
