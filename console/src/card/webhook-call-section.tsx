// "Webhook Call" (spec §2.3): once the flow is published, the resolved
// endpoint URL and a ready-to-copy curl. The secret is never in it (only its
// hash exists); the curl names where to put it and the caller's credentials.
import { useId, useState } from 'react';
import type { ProviderRoute, WebhookCall } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';

export function WebhookCallSection({
  call,
  providerRoute,
  published,
  activity,
}: {
  call?: WebhookCall;
  providerRoute?: ProviderRoute;
  published: boolean;
  activity: string;
}) {
  const headingId = useId();
  const curl = call ? curlOf(call, activity) : '';
  return (
    <section className="card" aria-labelledby={headingId}>
      <h2 id={headingId}>Webhook Call</h2>
      {published && call ? (
        <>
          <dl className="facts">
            <dt>Method</dt>
            <dd>{call.method || 'POST'}</dd>
            <dt>URL</dt>
            <dd>
              <code className="url">{call.url}</code> <CopyButton text={call.url} label="Copy URL" />
            </dd>
            <dt>Request body</dt>
            <dd>
              <code>{bodyOf(call, activity)}</code>
            </dd>
          </dl>
          <h3>Ready to copy: curl</h3>
          <pre className="curl">{curl}</pre>
          <CopyButton text={curl} label="Copy curl" />
          <p className="field-hint">
            Put the flow's secret (shown once when it was generated) and a service user's web service access key in
            place of the placeholders.
          </p>
        </>
      ) : (
        <p>The endpoint URL and a ready-to-copy curl appear here once the flow is published.</p>
      )}
      {providerRoute ? (
        <>
          <h3>Provider route</h3>
          <p>
            Providers post their own body to <code>{providerRoute.url}</code>, verified as{' '}
            <code>{providerRoute.scheme}</code>.{' '}
            {providerRoute.hookSecretSet
              ? 'Its signing secret is set.'
              : 'No signing secret yet: the route refuses every request until one is set (flowhook hook-secret set).'}
          </p>
        </>
      ) : null}
    </section>
  );
}

function CopyButton({ text, label }: { text: string; label: string }) {
  const [done, setDone] = useState('');
  return (
    <>
      <button
        type="button"
        className="secondary small"
        onClick={() =>
          void navigator.clipboard.writeText(text).then(
            () => setDone('Copied.'),
            () => setDone('Select the text and copy it yourself.'),
          )
        }
      >
        {label}
      </button>
      <span role="status" className="muted">
        {' '}
        {done}
      </span>
    </>
  );
}

/** The request body with a placeholder in place of the secret, whatever the engine's sample holds. */
function bodyOf(call: WebhookCall, activity: string): string {
  let payload: unknown = {};
  try {
    payload = (JSON.parse(call.sampleBody) as { payload?: unknown }).payload ?? {};
  } catch {
    // the request's shape is known anyway
  }
  return JSON.stringify({ activity, secret: '<secret>', payload });
}

function curlOf(call: WebhookCall, activity: string): string {
  return [
    `curl -sS -X ${call.method || 'POST'} ${shellQuote(call.url)} \\`,
    `  -u '<service user>:<web service access key>' \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d ${shellQuote(bodyOf(call, activity))}`,
  ].join('\n');
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
