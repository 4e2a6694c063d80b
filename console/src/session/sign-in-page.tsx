// Signing in: an admin token (the embedded default's `<data dir>/admin-token`,
// an admin-scope service account token, or FLOWHOOK_ADMIN_TOKEN), or the
// identity provider when OpenID Connect is configured. The token goes to the
// engine once, in SignIn's body; the page keeps it nowhere.
import { useState, type FormEvent } from 'react';
import { messageOf } from '../rpc/transport.ts';
import { useSession } from './session.tsx';

export function SignInPage() {
  const session = useSession();
  const [token, setToken] = useState('');
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (token.trim() === '') return setProblem('Paste an admin token first.');
    setBusy(true);
    setProblem(undefined);
    try {
      await session.signInWithToken(token);
      setToken('');
    } catch (error) {
      setProblem(messageOf(error));
    } finally {
      setBusy(false);
    }
  };
  const oidc = session.signIn?.oidcPath;
  return (
    <main id="content" className="sign-in">
      <h1>Sign in to the flowhook console</h1>
      {oidc ? (
        <p>
          <a className="button" href={oidc}>
            Sign in with {hostOf(session.signIn!.oidcIssuer)}
          </a>
        </p>
      ) : null}
      <form onSubmit={(event) => void submit(event)} noValidate>
        <div className="field">
          <label htmlFor="admin-token">Admin token</label>
          <input
            id="admin-token"
            type="password"
            autoComplete="off"
            spellCheck={false}
            required
            value={token}
            onChange={(event) => setToken(event.target.value)}
            aria-invalid={problem ? true : undefined}
            aria-describedby={problem ? 'sign-in-problem admin-token-hint' : 'admin-token-hint'}
          />
          {problem ? (
            <p id="sign-in-problem" className="field-problem" role="alert">
              {problem}
            </p>
          ) : null}
          <p id="admin-token-hint" className="field-hint">
            An admin-scope service account token or <code>FLOWHOOK_ADMIN_TOKEN</code>. On a local{' '}
            <code>flowhook start</code> it is in <code>.flowhook/admin-token</code>. It is checked once and not kept:
            this browser gets a session cookie instead.
          </p>
        </div>
        <button type="submit" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}

function hostOf(issuer: string): string {
  try {
    return new URL(issuer).host;
  } catch {
    return 'your identity provider';
  }
}
