// Establishes who is calling before the body is read or the engine is asked.
// Each supported Authorization scheme has a verifier; a request whose scheme
// has none, or whose credentials its verifier refuses, is answered 401 without
// an engine call. Basic (spec §5.2) is here; Bearer (spec §5.1) is in oauth/.
import type { CallerInit, FacadeMiddleware } from './facade-context.ts';
import { parseBasicAuthorization } from './basic-auth.ts';
import { UnauthorizedError } from './http-errors.ts';

export interface CallerVerifier {
  /** The Authorization scheme handled, lower case (`basic`, `bearer`). */
  scheme: string;
  /** The caller for this Authorization header value, or undefined to refuse it. */
  verify(authorization: string): CallerInit | undefined | Promise<CallerInit | undefined>;
}

/** Basic user name + access key, passed on for the engine to verify. */
export const basicVerifier: CallerVerifier = {
  scheme: 'basic',
  verify(authorization) {
    const credentials = parseBasicAuthorization(authorization);
    return credentials && { identity: { case: 'basic', value: credentials } };
  },
};

export function authenticateCaller(verifiers: readonly CallerVerifier[]): FacadeMiddleware {
  const byScheme = new Map(verifiers.map((verifier) => [verifier.scheme, verifier]));
  return async function authenticate(ctx, next) {
    const authorization = ctx.get('authorization');
    const scheme = /^([A-Za-z][A-Za-z0-9!#$%&'*+.^_`|~-]*)(?:[ \t]|$)/.exec(authorization)?.[1]?.toLowerCase();
    const verifier = scheme ? byScheme.get(scheme) : undefined;
    const caller = verifier ? await verifier.verify(authorization) : undefined;
    if (!caller) throw new UnauthorizedError();
    ctx.state.caller = caller;
    await next();
  };
}
