// One execution as the engine reads it from Temporal (ExecutionService.GetExecution):
// where it stands, why it failed (the step and its reason, and the connection
// an httpRequest step used), the answer its caller got, the steps as a
// timeline with their outputs, the payload as exact text, its re-runs, and
// the same execution in the Temporal Web UI. Read again while it runs.
// A withheld flow-control key is shown by its label (`#…`), which the list's
// filter does not take: only the key itself finds its executions.
import { Link, useParams } from 'react-router';
import { useQuery } from '@connectrpc/connect-query';
import { ExecutionService } from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { Page } from '../ui/page.tsx';
import { LoadProblem, Loading } from '../ui/states.tsx';
import { CallerAnswerSection } from './caller-answer.tsx';
import { ExecutionFailure } from './execution-failure.tsx';
import { ExecutionPayload } from './execution-payload.tsx';
import { ExecutionTimeline } from './execution-timeline.tsx';
import { executionsLink } from './execution-filter.ts';
import { between, durationText, timeText } from './format.ts';
import { RerunButton } from './rerun-button.tsx';
import './operations.css';

const RUNNING_REFRESH_MS = 3_000;
/** The engine's label of a key it does not show (engine/domain/flow-control/coordinator-ids.ts). */
const KEY_LABEL = /^#[A-Za-z0-9_-]{16}$/;

export default function ExecutionPage() {
  const { executionId = '' } = useParams();
  const execution = useQuery(
    ExecutionService.method.getExecution,
    { executionId },
    { refetchInterval: (query) => (query.state.data?.execution?.status === 'RUNNING' ? RUNNING_REFRESH_MS : false) },
  );
  const data = execution.data;
  const summary = data?.execution;
  return (
    <Page
      id="execution-title"
      title={
        <>
          Execution <code>{executionId}</code>
        </>
      }
      actions={
        summary ? (
          <div className="toolbar">
            <RerunButton execution={summary} />
            {data.temporalUiUrl ? (
              <a className="button secondary-link" href={data.temporalUiUrl} target="_blank" rel="noreferrer noopener">
                Open in the Temporal UI
              </a>
            ) : null}
          </div>
        ) : null
      }
    >
      {execution.isPending ? <Loading what="the execution" /> : null}
      {execution.isError ? <LoadProblem what="the execution" error={execution.error} /> : null}
      {data && summary ? (
        <>
          <ExecutionFailure execution={data} />
          <dl className="facts card">
            <dt>Flow</dt>
            <dd>
              <Link to={`/flows/${encodeURIComponent(summary.company)}/${encodeURIComponent(summary.flowName)}`}>
                {summary.flowName}
              </Link>{' '}
              v{summary.flowVersion}{' '}
              <span className="muted">
                (activity <code>{summary.activity}</code>, company {summary.company})
              </span>
            </dd>
            <dt>Status</dt>
            <dd>
              <span className={`status status-${summary.status.toLowerCase()}`}>
                {summary.status.toLowerCase().replace('_', ' ')}
              </span>
              {summary.outcome ? <span className="muted"> · caller&apos;s window: {summary.outcome}</span> : null}
            </dd>
            <dt>Started</dt>
            <dd>{timeText(summary.startedAt)}</dd>
            <dt>Closed</dt>
            <dd>
              {summary.closedAt
                ? `${timeText(summary.closedAt)} (took ${durationText(between(summary.startedAt, summary.closedAt))})`
                : 'still running'}
            </dd>
            <dt>Caller</dt>
            <dd>
              {data.caller ? (
                <Link to={executionsLink({ company: summary.company, caller: data.caller })}>
                  <code>{data.caller}</code>
                </Link>
              ) : (
                '—'
              )}
            </dd>
            {summary.keys.length > 0 ? (
              <>
                <dt>Flow control</dt>
                <dd>
                  {summary.keys.map((key) => (
                    <span key={key}>
                      key{' '}
                      {KEY_LABEL.test(key) ? (
                        <code title="A withheld key's label: the execution list finds its executions by the key itself">
                          {key}
                        </code>
                      ) : (
                        <Link to={executionsLink({ company: summary.company, key })}>
                          <code>{key}</code>
                        </Link>
                      )}{' '}
                    </span>
                  ))}
                  <span className="muted">· waited {durationText(Number(summary.waitedMs))} before its first step</span>
                </dd>
              </>
            ) : null}
            {data.rerunOf ? (
              <>
                <dt>Re-run of</dt>
                <dd>
                  <Link to={`/executions/${encodeURIComponent(data.rerunOf)}`}>{data.rerunOf}</Link>
                </dd>
              </>
            ) : null}
            {data.reruns.length > 0 ? (
              <>
                <dt>Re-runs</dt>
                <dd>
                  <ul className="plain">
                    {data.reruns.map((id) => (
                      <li key={id}>
                        <Link to={`/executions/${encodeURIComponent(id)}`}>{id}</Link>
                      </li>
                    ))}
                  </ul>
                </dd>
              </>
            ) : null}
          </dl>
          <CallerAnswerSection
            answer={data.answer}
            running={summary.status === 'RUNNING'}
            withheld={data.payloadWithheld}
          />
          <ExecutionTimeline steps={data.steps} outputs={data.stepOutputs} withheld={data.payloadWithheld} />
          <ExecutionPayload execution={data} />
        </>
      ) : null}
    </Page>
  );
}
