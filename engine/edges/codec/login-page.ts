// The codec server's sign-in page: where an operator whose Temporal UI has no
// login (the dev server's) pastes an admin token once, and reads how to point
// the UI at the codec. Static HTML, no script; every interpolated value escaped.
import { escapeHtml } from '../http/http-answers.ts';

export interface LoginPageView {
  /** This codec server's URL as the browser reached it: the endpoint to enter in the UI. */
  codecUrl: string;
  /** The Temporal UI origins allowed to call the codec (FLOWHOOK_CODEC_ALLOWED_ORIGINS). */
  uiOrigins: readonly string[];
  signedInAs?: { name: string; until: Date };
  /** A refusal to show, e.g. after a wrong token. */
  problem?: string;
}

/** No script at all, no framing (clickjacking the sign-in form), the form posts only to us. */
export const LOGIN_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

export function loginPage(view: LoginPageView): string {
  const ui =
    view.uiOrigins.length > 0
      ? view.uiOrigins.map((origin) => `<a href="${escapeHtml(origin)}">${escapeHtml(origin)}</a>`).join(' or ')
      : 'your Temporal UI (none is allowed yet: set FLOWHOOK_CODEC_ALLOWED_ORIGINS)';
  const status = view.signedInAs
    ? `<p class="ok">Signed in as <b>${escapeHtml(view.signedInAs.name)}</b> until ${escapeHtml(view.signedInAs.until.toISOString().replace('T', ' ').slice(0, 16))} UTC.</p>
<form method="post" action="/logout"><button type="submit">Sign out</button></form>`
    : `<form method="post" action="/login">
<label for="token">Admin token</label>
<input id="token" name="token" type="password" autocomplete="off" required>
<button type="submit">Sign in</button>
</form>
<p class="hint">An admin-scope service account token (<code>flowhook service-account create &lt;name&gt; --scope admin</code>; <code>flowhook start</code> keeps one in <code>.flowhook/admin-token</code>) or <code>FLOWHOOK_ADMIN_TOKEN</code>. It is checked once and not kept; this browser gets a session cookie instead.</p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="same-origin"><title>flowhook codec server</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:44rem;margin:2rem auto;padding:0 1rem}input{width:100%;padding:.4rem;margin:.3rem 0 .6rem}code{background:#eee;padding:0 .2rem}.ok{color:#075}.problem{color:#a00}.hint{color:#555}</style></head>
<body><h1>flowhook codec server</h1>
<p>Decrypts the payloads of <code>doNotLogPayload</code> executions for operators, in the Temporal UI.</p>
${view.problem ? `<p class="problem">${escapeHtml(view.problem)}</p>` : ''}${status}
<h2>Then, in the Temporal UI</h2>
<ol>
<li>Open the Temporal UI in this browser (${ui}) under the same host name as this page: the session is not sent from a page of another host name (127.0.0.1 and localhost are two).</li>
<li>Open the codec server settings (the <i>Codec Server</i> / data encoder button of the navigation bar).</li>
<li>Choose <i>Use my browser setting and ignore Cluster-level setting</i>, enter <code>${escapeHtml(view.codecUrl)}</code> as the endpoint, and turn on <i>Include cross-origin credentials</i>. Apply.</li>
<li>Open an execution: its payloads read as JSON. Without a session the UI shows the ciphertext and a codec error.</li>
</ol>
</body></html>
`;
}
