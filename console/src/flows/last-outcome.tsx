// The outcome of a flow's latest execution, for its row in the flow list
// (ExecutionService.ListExecutions, newest first, one).
import { Link } from 'react-router';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { ExecutionService } from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';

export function LastOutcome({ company, flowName }: { company: string; flowName: string }) {
  const executions = useQuery(
    ExecutionService.method.listExecutions,
    { company, flowName, limit: 1 },
    { staleTime: 30_000 },
  );
  if (executions.isPending) return <span className="muted">…</span>;
  if (executions.isError) return <span className="muted">unknown</span>;
  const last = executions.data.executions[0];
  if (!last) return <span className="muted">no executions yet</span>;
  const when = last.startedAt ? timestampDate(last.startedAt).toLocaleString() : '';
  return (
    <Link to={`/executions/${encodeURIComponent(last.executionId)}`}>
      {[last.status.toLowerCase(), last.outcome].filter(Boolean).join(', ')}
      <span className="muted"> · {when}</span>
    </Link>
  );
}
