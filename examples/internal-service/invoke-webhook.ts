// How an internal service starts a flowhook flow without going through the
// public webhook endpoint: it calls the engine's WebhookService/Invoke over
// gRPC, authenticated as its OWN service account (never the facade's), so the
// execution records `account:<name>` as its caller and the account can be
// scoped to its companies, rotated and disabled on its own.
//
// Copy this file into your service and adapt it. Configuration:
//   FLOWHOOK_ENGINE_URL       engine address (default http://127.0.0.1:7049, h2c on loopback;
//                             use https://… when the engine serves TLS)
//   FLOWHOOK_ENGINE_TOKEN     the account's token, fhsa_… — or FLOWHOOK_ENGINE_TOKEN_FILE, a
//                             file only you can read (chmod 600), to keep it out of the environment
//   FLOWHOOK_ENGINE_CA        optional PEM file: the ONLY CA trusted for an https:// engine
//   FLOWHOOK_ENGINE_CLIENT_CERT, FLOWHOOK_ENGINE_CLIENT_KEY   optional PEM files: mutual TLS (CN = the account)
//   FLOWHOOK_COMPANY, FLOWHOOK_ACTIVITY, FLOWHOOK_SECRET   which flow, and its per-flow secret
//   FLOWHOOK_IDEMPOTENCY_KEY  optional: the same key never starts a second execution
// The payload is a JSON object in the first argument (default {}):
//   node examples/internal-service/invoke-webhook.ts '{"orderId":42}'
//
// Create the account once with:
//   flowhook service-account create billing-sync --scope invoke --company CRONUS
import { readFileSync, statSync } from 'node:fs';
import { Code, ConnectError, createClient, type Interceptor } from '@connectrpc/connect';
import { createGrpcTransport } from '@connectrpc/connect-node';
import { InvokeOutcome, WebhookService } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';

/** Exit codes: 1 when the engine refused or failed the call, 2 when this program was misconfigured. */
const EXIT_REFUSED = 1;
const EXIT_USAGE = 2;

const ENGINE_URL = process.env.FLOWHOOK_ENGINE_URL || 'http://127.0.0.1:7049';

class UsageError extends Error {}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new UsageError(`${name} is not set`);
  return value;
}

/** The token from the environment or from a file; a file keeps it out of the environment other processes may read. */
function serviceAccountToken(): string {
  const file = process.env.FLOWHOOK_ENGINE_TOKEN_FILE;
  if (!file) return required('FLOWHOOK_ENGINE_TOKEN');
  if (process.env.FLOWHOOK_ENGINE_TOKEN)
    throw new UsageError('set FLOWHOOK_ENGINE_TOKEN or FLOWHOOK_ENGINE_TOKEN_FILE, not both');
  // A token others can read is a token others can use.
  if ((statSync(file).mode & 0o077) !== 0) throw new UsageError(`${file} is readable by others: chmod 600 it`);
  return readFileSync(file, 'utf8').trim();
}

/** The payload must be a JSON object; checking here gives a clearer message than the engine's refusal. */
function payloadFromArgument(text = '{}'): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new UsageError(`the payload argument is not JSON: ${text}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
    throw new UsageError('the payload must be a JSON object');
  return text;
}

/** TLS options for an https:// engine; a CA on a cleartext URL would silently leave the link unencrypted, so it is refused. */
function tlsOptions(engineUrl: string): { nodeOptions?: { ca?: Buffer; cert?: Buffer; key?: Buffer } } {
  const {
    FLOWHOOK_ENGINE_CA: caPath,
    FLOWHOOK_ENGINE_CLIENT_CERT: certPath,
    FLOWHOOK_ENGINE_CLIENT_KEY: keyPath,
  } = process.env;
  if (!caPath && !certPath && !keyPath) return {};
  if (new URL(engineUrl).protocol !== 'https:')
    throw new UsageError(`TLS settings are set but ${engineUrl} is not https://`);
  if (Boolean(certPath) !== Boolean(keyPath))
    throw new UsageError('set FLOWHOOK_ENGINE_CLIENT_CERT and FLOWHOOK_ENGINE_CLIENT_KEY together (mutual TLS)');
  return {
    nodeOptions: {
      // `ca` replaces the system roots: only the engine's own CA can vouch for it.
      ...(caPath ? { ca: readFileSync(caPath) } : {}),
      // Mutual TLS: the certificate's CN names this service account.
      ...(certPath && keyPath ? { cert: readFileSync(certPath), key: readFileSync(keyPath) } : {}),
    },
  };
}

/** Adds the service account's token to every call. */
function bearer(token: string): Interceptor {
  return (next) => (request) => {
    request.header.set('authorization', `Bearer ${token}`);
    return next(request);
  };
}

/** The cause of a failure on this side of the wire (connection refused, untrusted certificate): the engine never answered. */
function connectionFailure(error: ConnectError): string | undefined {
  const cause = error.cause as NodeJS.ErrnoException | undefined;
  return cause instanceof Error && typeof cause.code === 'string' ? cause.message : undefined;
}

/** What each refusal means for the caller, and what to check. */
function explain(error: ConnectError): string {
  const unreachable = connectionFailure(error);
  if (unreachable !== undefined) return `cannot reach the engine at ${ENGINE_URL}: ${unreachable}`;
  switch (error.code) {
    case Code.Unauthenticated:
      return `unauthenticated: the service account token or the flow secret is wrong, or the account is disabled (${error.rawMessage})`;
    case Code.PermissionDenied:
      return `permission denied: ${error.rawMessage}`;
    case Code.NotFound:
      return `not found: no such company or activity (${error.rawMessage})`;
    case Code.InvalidArgument:
      return `invalid request: ${error.rawMessage}`;
    case Code.ResourceExhausted:
      return `rate limited: retry after ${error.metadata.get('retry-after') ?? '?'} s`;
    case Code.Unavailable:
      return `unavailable: the engine (or its database or Temporal) cannot be reached right now; retry later (${error.rawMessage})`;
    case Code.Internal:
      return `the flow failed before it responded: ${error.rawMessage}`;
    default:
      return `${Code[error.code]}: ${error.rawMessage}`;
  }
}

async function main(): Promise<number> {
  // The gRPC protocol always runs over HTTP/2 (h2c for http://, TLS with ALPN for https://).
  const transport = createGrpcTransport({
    baseUrl: ENGINE_URL,
    interceptors: [bearer(serviceAccountToken())],
    ...tlsOptions(ENGINE_URL),
  });
  const webhooks = createClient(WebhookService, transport);

  // No `caller` field: an internal service calls as itself (only the facade may pass on an end user).
  const answer = await webhooks.invoke({
    company: required('FLOWHOOK_COMPANY'),
    activity: required('FLOWHOOK_ACTIVITY'),
    secret: required('FLOWHOOK_SECRET'),
    payloadJson: payloadFromArgument(process.argv[2]),
    idempotencyKey: process.env.FLOWHOOK_IDEMPOTENCY_KEY ?? '',
  });

  console.log(`status: ${answer.statusCode}`);
  console.log(`content-type: ${answer.contentType}`);
  console.log(`execution: ${answer.executionId}`);
  console.log(`outcome: ${InvokeOutcome[answer.outcome]}`);
  console.log('');
  console.log(answer.body);
  return 0;
}

// process.exit also closes the HTTP/2 session the transport keeps open for reuse.
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof ConnectError) {
      console.error(`flowhook call failed: ${explain(error)}`);
      process.exit(EXIT_REFUSED);
    }
    console.error(error instanceof UsageError ? error.message : String(error));
    process.exit(EXIT_USAGE);
  },
);
