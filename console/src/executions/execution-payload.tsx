// The payload as the caller sent it, as exact text (never re-formatted: the
// bytes are what a re-run sends again). A flow that does not log its payload
// has it withheld; admins of its company may decrypt it here, as they may in
// the Temporal UI through the codec server (RevealExecutionPayload, which the
// audit log records), together with the step outputs, the failure reason and
// the bodies of the caller's answer, which the page withholds too.
import { useMutation } from '@connectrpc/connect-query';
import {
  ExecutionService,
  type GetExecutionResponse,
} from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { messageOf } from '../rpc/transport.ts';
import { mayIn, useSession } from '../session/session.tsx';

export function ExecutionPayload({ execution }: { execution: GetExecutionResponse }) {
  const { person } = useSession();
  const summary = execution.execution!;
  const reveal = useMutation(ExecutionService.method.revealExecutionPayload);
  const revealed = reveal.data;
  return (
    <section aria-labelledby="payload-title" className="card">
      <h2 id="payload-title">Payload</h2>
      {!execution.payloadWithheld ? (
        execution.payloadJson ? (
          <pre className="exact" aria-label="Payload text">
            {execution.payloadJson}
          </pre>
        ) : (
          <p className="muted">(empty)</p>
        )
      ) : revealed ? (
        <>
          <p className="muted">Decrypted for you; the audit log records that you read it.</p>
          <pre className="exact" aria-label="Payload text">
            {revealed.payloadJson}
          </pre>
          {revealed.failureReason ? (
            <>
              <h3>Failure reason</h3>
              <pre className="exact">{revealed.failureReason}</pre>
            </>
          ) : null}
          {revealed.answer?.body ? (
            <>
              <h3>The caller&apos;s answer</h3>
              <pre className="exact" aria-label="Answer body">
                {revealed.answer.body}
              </pre>
            </>
          ) : null}
          {revealed.answer?.lateAnswer ? (
            <>
              <h3>Late answer</h3>
              <pre className="exact" aria-label="Late answer body">
                {revealed.answer.lateAnswer.body}
              </pre>
            </>
          ) : null}
          {revealed.stepOutputs.map((output) => (
            <details key={output.name}>
              <summary>Output of {output.name}</summary>
              <pre className="exact">{output.outputJson}</pre>
            </details>
          ))}
        </>
      ) : (
        <>
          <p>Withheld: the flow does not log its payload (Do not log payload). It is stored encrypted.</p>
          {mayIn(person, summary.company, 'admin') ? (
            <button
              type="button"
              className="secondary"
              disabled={reveal.isPending}
              onClick={() => reveal.mutate({ executionId: summary.executionId, company: summary.company })}
            >
              Decrypt the payload
            </button>
          ) : (
            <p className="muted">Only admins of {summary.company} may decrypt it.</p>
          )}
          {reveal.isError ? (
            <p role="alert" className="problem">
              {messageOf(reveal.error)}
            </p>
          ) : null}
        </>
      )}
    </section>
  );
}
