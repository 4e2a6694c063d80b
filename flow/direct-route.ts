// Publish-time checks of a webhook trigger's provider route
// (`trigger.webhook.direct`). Pure and JSON-level, like the rest of
// flow-validation.ts: problems name fields in the flow file's own spelling.
// Verifying requests is engine/domain/direct/verification's job; this only makes
// sure that what it will be asked to verify is well-formed. What is particular
// to one scheme (its facts and the checks of its own settings) is in its module
// under verification-schemes/.
import type { DirectRouteJson, DirectVerificationJson } from '../proto/gen/flowhook/flow/v1/flow_pb.js';
import {
  DIRECT_SCHEMES,
  DIRECT_SCHEME_NAMES,
  hasSignedTimestamp,
  type DirectScheme,
} from './verification-schemes/scheme-registry.ts';
import type { SchemeFacts, SchemeJson } from './verification-schemes/scheme-facts.ts';

// The registry as flow/index.ts and the engine's scheme metric label know it.
export { DIRECT_SCHEMES, type DirectScheme } from './verification-schemes/scheme-registry.ts';

export const MAX_DIRECT_TOLERANCE_SECONDS = 3600;

/** The configured scheme, or undefined when verify names none (or several: the check reports it). */
export function directSchemeOf(verify: DirectVerificationJson | undefined): DirectScheme | undefined {
  const named = DIRECT_SCHEME_NAMES.filter((name) => verify?.[name] !== undefined && verify[name] !== null);
  return named.length === 1 ? named[0] : undefined;
}

export function validateDirectRoute(direct: DirectRouteJson, at: string, errors: string[]): void {
  const named = DIRECT_SCHEME_NAMES.filter(
    (name) => direct.verify?.[name] !== undefined && direct.verify[name] !== null,
  );
  if (named.length !== 1) {
    const found = named.length === 0 ? 'none' : named.join(' and ');
    errors.push(`${at}.verify: exactly one scheme of ${DIRECT_SCHEME_NAMES.join(', ')} (found ${found})`);
    return;
  }
  validateScheme(named[0]!, direct, at, errors);
}

function validateScheme<Name extends DirectScheme>(
  name: Name,
  direct: DirectRouteJson,
  at: string,
  errors: string[],
): void {
  const scheme: SchemeFacts<SchemeJson<Name>> = DIRECT_SCHEMES[name];
  const config = direct.verify![name] as SchemeJson<Name>;
  scheme.check?.(config, `${at}.verify.${name}`, errors);
  const tolerance = direct.toleranceSeconds;
  if (tolerance === undefined) return;
  if (!Number.isInteger(tolerance) || tolerance < 1 || tolerance > MAX_DIRECT_TOLERANCE_SECONDS) {
    errors.push(
      `${at}.toleranceSeconds: must be between 1 and ${MAX_DIRECT_TOLERANCE_SECONDS}, got ${JSON.stringify(tolerance)}`,
    );
  } else if (!hasSignedTimestamp(name, config)) {
    // A tolerance nothing checks would read as replay protection the route does not have.
    errors.push(
      `${at}.toleranceSeconds: ${scheme.signedTimestamp === 'when configured' ? scheme.withoutSignedTimestamp : `${name} signs no timestamp`}; remove it`,
    );
  }
}
