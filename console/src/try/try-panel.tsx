// "Try it": one call through the real webhook endpoint (FlowAdminService.TryFlow:
// the engine posts it to the Webhook Call URL, since a console page talks to
// its own origin only). The secret is typed in; the caller's credentials are
// one of the company's connections (whose secret the page never sees) or typed
// for this try. Shows the HTTP answer, the envelope's value parsed, and the
// execution it started.
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useMutation, useQuery } from '@connectrpc/connect-query';
import {
  ConnectionAdminService,
  ConnectionType,
} from '../../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { FlowAdminService, type TryFlowResponse } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { messageOf } from '../rpc/transport.ts';
import { SelectField, TextAreaField, TextField } from '../ui/field.tsx';
import { recentPayloads, rememberPayload } from './recent-payloads.ts';

const TYPED = '(typed)';
const NONE = '(none)';

export default function TryPanel({
  company,
  activity,
  published,
}: {
  company: string;
  activity: string;
  published: boolean;
}) {
  const connections = useQuery(ConnectionAdminService.method.listConnections, { company });
  const callers = (connections.data?.connections ?? []).filter(
    (connection) =>
      connection.settings?.type === ConnectionType.BASIC || connection.settings?.type === ConnectionType.BEARER,
  );
  const [recent, setRecent] = useState(() => recentPayloads(company, activity));
  const [payload, setPayload] = useState(recent[0] ?? '{\n  "name": "Ada"\n}');
  const [secret, setSecret] = useState('');
  const [caller, setCaller] = useState<string>();
  const [user, setUser] = useState('');
  const [accessKey, setAccessKey] = useState('');
  const [problem, setProblem] = useState<string>();
  const tryFlow = useMutation(FlowAdminService.method.tryFlow);
  const chosen = caller ?? callers[0]?.name ?? TYPED;
  const payloadProblem = jsonObjectProblem(payload);

  const send = async (event: FormEvent) => {
    event.preventDefault();
    setProblem(undefined);
    if (payloadProblem) return setProblem(payloadProblem);
    const by =
      chosen === TYPED
        ? { case: 'basic' as const, value: { user, accessKey } }
        : chosen === NONE
          ? { case: undefined }
          : { case: 'connection' as const, value: chosen };
    try {
      await tryFlow.mutateAsync({ company, activity, secret, payloadJson: payload, caller: by });
      setRecent(rememberPayload(company, activity, payload));
    } catch (error) {
      setProblem(messageOf(error));
    }
  };

  if (!published) return <p>Publish the flow first: the endpoint reaches published flows only.</p>;
  return (
    <div className="try">
      <form onSubmit={(event) => void send(event)} noValidate className="card">
        <h2>Send a call through the endpoint</h2>
        {recent.length > 0 ? (
          <SelectField
            label="Recent payloads"
            value=""
            onChange={(event) => event.target.value !== '' && setPayload(event.target.value)}
            hint="Kept for this browser session only."
          >
            <option value="">Choose one to load it…</option>
            {recent.map((item, index) => (
              <option key={item} value={item}>
                {index + 1}. {item.replace(/\s+/g, ' ').slice(0, 60)}
              </option>
            ))}
          </SelectField>
        ) : null}
        <TextAreaField
          label="Payload (JSON)"
          rows={8}
          className="code"
          spellCheck={false}
          value={payload}
          onValue={setPayload}
          problem={payloadProblem}
          hint="Sent byte for byte as the call's payload: the flow sees exactly this text."
        />
        <TextField
          label="Flow secret"
          type="password"
          autoComplete="off"
          value={secret}
          onValue={setSecret}
          hint="The secret shown when it was generated; it is sent with this call only."
        />
        <SelectField
          label="Call as"
          value={chosen}
          onValue={setCaller}
          hint="A Basic or Bearer connection of the company that may send its credentials to the endpoint, or a service user typed here."
        >
          {callers.map((connection) => (
            <option key={connection.name} value={connection.name}>
              Connection {connection.name} (
              {connection.settings?.type === ConnectionType.BASIC
                ? `user ${connection.settings.username}`
                : 'bearer token'}
              )
            </option>
          ))}
          <option value={TYPED}>A service user and access key typed here</option>
          <option value={NONE}>No credentials</option>
        </SelectField>
        {chosen === TYPED ? (
          <>
            <TextField label="Service user" autoComplete="off" value={user} onValue={setUser} />
            <TextField
              label="Web service access key"
              type="password"
              autoComplete="off"
              value={accessKey}
              onValue={setAccessKey}
            />
          </>
        ) : null}
        {problem ? (
          <p role="alert" className="problem">
            {problem}
          </p>
        ) : null}
        <button type="submit" disabled={tryFlow.isPending}>
          {tryFlow.isPending ? 'Sending…' : 'Send call'}
        </button>
      </form>
      <section className="card" aria-labelledby="try-answer" aria-live="polite">
        <h2 id="try-answer">Answer</h2>
        {tryFlow.data ? <Answer answer={tryFlow.data} /> : <p className="muted">Nothing sent yet.</p>}
      </section>
    </div>
  );
}

function Answer({ answer }: { answer: TryFlowResponse }) {
  const value = envelopeValue(answer.body);
  return (
    <>
      <dl className="facts">
        <dt>HTTP status</dt>
        <dd>{answer.httpStatus}</dd>
        <dt>Content-Type</dt>
        <dd>{answer.contentType || '—'}</dd>
        <dt>Outcome</dt>
        <dd>{answer.outcome || '—'}</dd>
        <dt>Execution</dt>
        <dd>
          {answer.executionId ? (
            <Link to={`/executions/${encodeURIComponent(answer.executionId)}`}>{answer.executionId}</Link>
          ) : (
            'none started'
          )}
        </dd>
      </dl>
      <h3>Body</h3>
      <pre className="answer-body">{answer.body}</pre>
      {value ? (
        <>
          <h3>The envelope's value, parsed</h3>
          <dl className="facts">
            <dt>statusCode</dt>
            <dd>{String(value.statusCode)}</dd>
            <dt>contentType</dt>
            <dd>{String(value.contentType)}</dd>
            <dt>body</dt>
            <dd>
              <pre>{String(value.body)}</pre>
            </dd>
          </dl>
        </>
      ) : null}
    </>
  );
}

/** The OData envelope's `value`: a JSON document in a string, parsed a second time (spec §2.2). */
function envelopeValue(body: string): Record<string, unknown> | undefined {
  try {
    const envelope = JSON.parse(body) as { value?: unknown };
    return typeof envelope.value === 'string' ? (JSON.parse(envelope.value) as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function jsonObjectProblem(text: string): string | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? undefined
      : 'The payload must be a JSON object.';
  } catch (error) {
    return `Not JSON: ${error instanceof Error ? error.message : String(error)}`;
  }
}
