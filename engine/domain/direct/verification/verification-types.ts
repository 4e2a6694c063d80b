// The shapes shared by the dispatcher (index.ts) and every scheme module. Kept
// apart from index.ts so scheme modules never import the dispatcher (no cycles).
import type { DirectScheme } from '../../../../flow/verification-schemes/scheme-facts.ts';

/** The proto's oneof case names; the schemes' facts and publish checks are in flow/verification-schemes/. */
export type DirectSchemeName = DirectScheme;

/** `previous` only while its overlap lasts: the caller filters by time, this module trusts what it is given. */
export interface HookSecrets {
  current: string;
  previous?: string;
}

/** Header names lower-cased; a repeated header arrives joined with ', '. `body` is the raw bytes as received. */
export interface DirectRequest {
  headers: ReadonlyMap<string, string>;
  body: Uint8Array;
  nowMs: number;
}

/** The closed set of reasons; a refusal never says which secret or signature came closest. */
export type DirectRefusal = 'missing_header' | 'malformed_header' | 'stale_timestamp' | 'signature_mismatch';

/**
 * What tells one delivery from another, taken only from what the signature covers, so that no
 * unsigned header can make a captured delivery look like a new one: the event id where the scheme
 * signs one, otherwise the signed content itself — its parts in order, exactly as they were hashed
 * (the engine keys its digest; nothing here is kept). `signedTimestamp`: the signature covers a
 * timestamp that had to be inside the tolerance, so the same delivery is refused once that has
 * passed; without one, nothing in the request tells a replay from a new event.
 */
export type DeliveryKey = ({ signedEventId: string } | { signedContent: readonly (string | Uint8Array)[] }) & {
  signedTimestamp: boolean;
};

/** `eventId` is what the flow sees as Trigger.Provider.EventId: signed or not (github, shopify, hmac without {id}), never the deduplication key unless `delivery` says so. */
export type Verified = { ok: true; scheme: DirectSchemeName; eventId?: string; delivery: DeliveryKey };
export type Refused = { ok: false; scheme: DirectSchemeName; reason: DirectRefusal };

/** What a scheme module answers; the dispatcher adds the scheme name. */
export type SchemeOutcome =
  { ok: true; eventId?: string; delivery: DeliveryKey } | { ok: false; reason: DirectRefusal };

export const refuse = (reason: DirectRefusal): SchemeOutcome => ({ ok: false, reason });
export const accept = (eventId: string | undefined, delivery: DeliveryKey): SchemeOutcome =>
  eventId === undefined ? { ok: true, delivery } : { ok: true, eventId, delivery };

/** A delivery known by the event id its signature covers. */
export const bySignedId = (signedEventId: string, signedTimestamp: boolean): DeliveryKey => ({
  signedEventId,
  signedTimestamp,
});
/** A delivery known by exactly what its signature covers. */
export const bySignedContent = (
  signedContent: readonly (string | Uint8Array)[],
  signedTimestamp: boolean,
): DeliveryKey => ({ signedContent, signedTimestamp });

/** The context every scheme's `verify` receives besides its own configuration. */
export interface SchemeInput {
  secrets: HookSecrets;
  request: DirectRequest;
  /** Already resolved from the route (default and bounds applied). */
  toleranceSeconds: number;
}

/**
 * What a scheme checks, in words, for the verification scheme reference
 * (docs/reference/verification-schemes.md is generated from these, and from the scheme's facts in
 * flow/verification-schemes/, e.g. whether it signs a timestamp): a new scheme is documented where
 * it is written.
 */
export interface SchemeDocumentation {
  /** The header(s) carrying the signature, and their format. */
  signatureHeaders: string;
  /** The bytes the signature covers. */
  signedContent: string;
  /** What `flowhook hook-secret set` takes as the secret. */
  secret: string;
  /** Where `Trigger.Provider.EventId` comes from, and whether the signature covers it. */
  eventId: string;
  /** What makes two requests one delivery (only signed material). */
  deliveryKey: string;
}

/**
 * How one verification scheme verifies: its rules and the headers it keeps from the flow. Listed
 * once in scheme-registry.ts, under its name; its facts and publish checks are its module in
 * flow/verification-schemes/.
 */
export interface VerificationScheme<Config> {
  readonly documentation: SchemeDocumentation;
  verify(config: Config, input: SchemeInput): SchemeOutcome;
  /** Lower-cased names of the headers carrying this scheme's signature and signed timestamp. */
  withheldHeaders(config: Config): readonly string[];
  /** Why this secret cannot be this scheme's signing secret, for `hook-secret set`; undefined when it can. */
  secretProblem(secret: string): string | undefined;
}
