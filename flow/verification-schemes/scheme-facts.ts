// What one verification scheme of a provider route (`trigger.webhook.direct.verify`)
// is, apart from verifying: the contract every module in this folder fulfils and
// the registry (scheme-registry.ts) lists. A scheme brings its facts — whether its
// signature covers a timestamp, whether the provider issues the secret — and the
// publish checks of its own settings. Pure and JSON-level like the rest of publish
// validation (flow/direct-route.ts): problems name fields in the flow file's own
// spelling. Verifying requests is the engine's half of the scheme
// (engine/domain/direct/verification/<scheme>-scheme.ts, listed in that folder's
// scheme-registry.ts); both registries are keyed by the proto's oneof case, so a
// scheme missing from either does not compile.
import type { DirectVerification, DirectVerificationJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';

/** The schemes: the proto's oneof case names, which are also the members of `direct.verify` in a flow file. */
export type DirectScheme = Exclude<DirectVerification['scheme']['case'], undefined>;

/** A scheme's settings as the flow file writes them (`direct.verify.<scheme>`). */
export type SchemeJson<Name extends DirectScheme> = NonNullable<DirectVerificationJson[Name]>;

/**
 * Whether the scheme's signature covers a timestamp, which the route's `toleranceSeconds` then
 * bounds: always, never, or as the route's settings say.
 */
export type SignedTimestamp = 'always' | 'never' | 'when configured';

interface SchemeFactsOf<Config> {
  /**
   * The provider issues the signing secret itself (its webhook settings show it): one generated
   * here could never match it, so `hook-secret set --generate` is refused for its routes.
   */
  readonly secretIssuedByProvider: boolean;
  /** Problems with the scheme's own settings, each naming its field below `at` (the scheme's member, e.g. `trigger.webhook.direct.verify.hmac`). */
  check?(config: Config, at: string, errors: string[]): void;
}

export type SchemeFacts<Config> = SchemeFactsOf<Config> &
  (
    | { readonly signedTimestamp: 'always' | 'never' }
    | {
        readonly signedTimestamp: 'when configured';
        /** Whether this route's settings have the signature cover a timestamp. */
        hasSignedTimestamp(config: Config): boolean;
        /** Why a route of these settings has no use for `toleranceSeconds` (the problem's text before "; remove it"). */
        readonly withoutSignedTimestamp: string;
      }
  );
