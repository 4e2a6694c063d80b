// What one connection kind is: the contract every module in this folder
// fulfils and the registry (connection-kind-registry.ts) lists. A kind brings
// the settings it uses (with their CLI help), what its secret is, its own
// checks and how it authenticates a request. Kind modules import no Node
// built-in and nothing from workflows/outbound: the engine and the CLI load
// them to check and describe connections, so the I/O a kind needs at run time
// (a token endpoint, the worker's token cache) is handed in by the worker
// through AuthenticationServices (workflows/outbound/connection-credentials.ts).
import type { ConnectionType } from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import type { ConnectionSettingsInput, KindSettingName, KindSettings } from './connection-settings.ts';

/** A setting a kind uses (connection-settings.ts lists them all). */
export interface KindSettingUse {
  name: KindSettingName;
  required?: boolean;
  /** The CLI option's help for this kind, after "<kind>: ". */
  help: string;
  /** What the worker uses when the setting is empty, shown by `connection show`. */
  default?: string;
}

/** What `authenticate` gets: the connection as the engine resolved it for this request. */
export interface ConnectionCredentials {
  name: string;
  settings: Readonly<KindSettings>;
  secret: string;
}

/** An access token and how long it lives (from the token endpoint's `expires_in`; undefined when it said none). */
export interface TokenGrant {
  accessToken: string;
  expiresInMs?: number;
}

export interface TokenEndpointRequest {
  method: 'POST';
  url: URL;
  /** Lower-case names. */
  headers: Record<string, string>;
  body: string;
}

/** The worker's I/O a kind may use to authenticate, handed in so kind modules stay free of it. */
export interface AuthenticationServices {
  /**
   * This connection's cached token (per company, name and version), or the one `fetch` gets: one
   * fetch at a time, kept in the worker's memory until shortly before it expires, forgotten when
   * the resource answers 401.
   */
  cachedToken(fetch: () => Promise<TokenGrant>): Promise<string>;
  /** Sends a request through the egress policy, following no redirect. */
  send(request: TokenEndpointRequest): Promise<{ status: number; body: Uint8Array }>;
}

/**
 * A kind could not authenticate: `retryable` when trying again later may help (the step's retry
 * policy applies), otherwise the step fails at once. The message names the connection, never its secret.
 */
export class AuthenticationFailure extends Error {
  readonly type: string;
  readonly retryable: boolean;
  constructor(message: string, type: string, retryable: boolean) {
    super(message);
    this.name = 'AuthenticationFailure';
    this.type = type;
    this.retryable = retryable;
  }
}

export interface ConnectionKind<T extends ConnectionType = ConnectionType> {
  readonly type: T;
  /** The CLI's `--type` spelling, and the name the engine stores. */
  readonly name: string;
  /** What the secret is, for prompts and messages ("API key"). */
  readonly secretName: string;
  /** The settings it uses besides base URL and allowed hosts; the others must stay empty. */
  readonly settings: readonly KindSettingUse[];
  /**
   * `alerts`: an alert channel (Slack, Teams, a signed webhook, SMTP) that the engine sends alert
   * messages through; it carries no base URL or allowed hosts of its own (where it sends is its
   * secret or its own settings) and httpRequest steps cannot use it. Unset: request credentials.
   */
  readonly purpose?: 'alerts';
  /** An alert channel that sends to its base URL (the signed webhook): the base URL is required. */
  readonly usesBaseUrl?: boolean;
  /** Problems with the values of the settings it uses, each naming the setting (never quoting the secret). */
  check?(settings: ConnectionSettingsInput): string[];
  /** Problems with the secret's form, never quoting it (a webhook URL that is no URL). */
  checkSecret?(secret: string): string[];
  /** Lower-case header name → value, added to one request; they live only in that request's memory. */
  authenticate(connection: ConnectionCredentials, services: AuthenticationServices): Promise<Record<string, string>>;
}
