// One execution as the engine reads it from Temporal (ExecutionService.GetExecution):
// where it stands and its steps. What "Try it" and the flow list link to;
// re-runs and the execution list come with the console's second part.
import { useParams } from 'react-router';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { useQuery } from '@connectrpc/connect-query';
import { ExecutionService } from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { LoadProblem, Loading } from '../ui/states.tsx';

export default function ExecutionPage() {
  const { executionId = '' } = useParams();
  const execution = useQuery(ExecutionService.method.getExecution, { executionId });
  const data = execution.data;
  const summary = data?.execution;
  const time = (value: Parameters<typeof timestampDate>[0] | undefined) => (value ? timestampDate(value).toLocaleString() : '—');
  return (
    <section aria-labelledby="execution-title">
      <h1 id="execution-title" tabIndex={-1}>
        Execution <code>{executionId}</code>
      </h1>
      {execution.isPending ? <Loading what="the execution" /> : null}
      {execution.isError ? <LoadProblem what="the execution" error={execution.error} /> : null}
      {data && summary ? (
        <>
          <dl className="facts card">
            <dt>Flow</dt>
            <dd>
              {summary.flowName} v{summary.flowVersion} ({summary.company})
            </dd>
            <dt>Status</dt>
            <dd>{summary.status}</dd>
            <dt>Outcome</dt>
            <dd>{summary.outcome || '—'}</dd>
            <dt>Started</dt>
            <dd>{time(summary.startedAt)}</dd>
            <dt>Closed</dt>
            <dd>{time(summary.closedAt)}</dd>
            <dt>Caller</dt>
            <dd>{data.caller || '—'}</dd>
          </dl>
          <table>
            <caption>Steps</caption>
            <thead>
              <tr>
                <th scope="col">Step</th>
                <th scope="col">Kind</th>
                <th scope="col">Description</th>
                <th scope="col">Status</th>
                <th scope="col">Note</th>
              </tr>
            </thead>
            <tbody>
              {data.steps.map((step) => (
                <tr key={`${step.path}:${step.startedAt?.seconds ?? ''}`}>
                  <th scope="row">
                    <code>{step.path}</code>
                  </th>
                  <td>{step.type}</td>
                  <td>{step.description || step.name || '—'}</td>
                  <td>{step.status}</td>
                  <td>{step.note || ''}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <h2>Payload</h2>
          {data.payloadWithheld ? <p>Withheld: the flow does not log its payload.</p> : <pre>{data.payloadJson}</pre>}
        </>
      ) : null}
    </section>
  );
}
