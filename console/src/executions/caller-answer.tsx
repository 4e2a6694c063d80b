// What the caller of an execution got: the status, content type and body the
// flow answered (or the trigger's default response, or a 500 when the flow
// failed inside the caller's window), and a respond step's late answer — one
// that came after the caller's sync window had timed out, which the caller
// may still fetch (flowWebhook_Answer). A flow that does not log its payload
// has the bodies withheld (they usually echo it): admins decrypt them with the
// payload (execution-payload.tsx).
import type { CallerAnswer } from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';

const OUTCOMES: Record<string, string> = {
  RESPONDED: 'A Respond to Webhook step answered',
  SYNC_TIMEOUT: "The caller's sync window timed out: it got the default response",
  FLOW_ENDED: 'The flow ended without responding: the caller got the default response',
  INSTANT_RETURN: 'Instant return: the caller was answered at once',
  FAILED:
    "The flow failed before it responded: the caller got 500 Internal Server Error, with flowhook's error body (it names the step that failed, not why)",
};

export function CallerAnswerSection({
  answer,
  running,
  withheld,
}: {
  answer: CallerAnswer | undefined;
  running: boolean;
  withheld: boolean;
}) {
  const body = (text: string) =>
    withheld ? (
      <span className="muted">Withheld with the payload (Do not log payload)</span>
    ) : text ? (
      <pre className="exact">{text}</pre>
    ) : (
      <span className="muted">(empty)</span>
    );
  return (
    <section aria-labelledby="answer-title" className="card">
      <h2 id="answer-title">The caller&apos;s answer</h2>
      {!answer ? (
        <p className="muted">
          {running ? 'The caller is still waiting for its answer.' : 'Not known: the execution log could not be read.'}
        </p>
      ) : (
        <>
          <p>{OUTCOMES[answer.outcome] ?? answer.outcome}.</p>
          <dl className="facts">
            <dt>Status</dt>
            <dd>{answer.statusCode}</dd>
            {answer.outcome === 'FAILED' ? null : (
              <>
                <dt>Content type</dt>
                <dd>
                  <code>{answer.contentType || '—'}</code>
                </dd>
                <dt>Body</dt>
                <dd>{body(answer.body)}</dd>
              </>
            )}
          </dl>
          {answer.lateAnswer ? (
            <div className="late-answer">
              <h3>Late answer</h3>
              <p>
                A Respond to Webhook step answered after the caller&apos;s window had timed out; the caller can fetch it
                with flowWebhook_Answer.
              </p>
              <dl className="facts">
                <dt>Status</dt>
                <dd>{answer.lateAnswer.statusCode}</dd>
                <dt>Content type</dt>
                <dd>
                  <code>{answer.lateAnswer.contentType}</code>
                </dd>
                <dt>Body</dt>
                <dd>{body(answer.lateAnswer.body)}</dd>
              </dl>
            </div>
          ) : null}
        </>
      )}
    </section>
  );
}
