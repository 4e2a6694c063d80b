// One spelling of an issuer for storing and comparing: an application is bound
// to the issuer it was registered under, and the token's `iss` must be that
// issuer. Identity providers differ on a trailing slash (Entra v1
// `https://sts.windows.net/<tenant>/`, Keycloak and Cognito without), and
// operators copy it either way, so it never decides; nothing else is loosened
// (scheme, host and path compare exactly, as `iss` itself is compared).
import { withoutTrailingSlashes } from '../../../common/trailing-slashes.ts';

/** The issuer without surrounding blanks and trailing slashes. */
export function normalizeIssuer(issuer: string): string {
  return withoutTrailingSlashes(issuer.trim());
}
