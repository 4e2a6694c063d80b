// The console's "Try it" panel: one call through the real webhook endpoint
// (the Webhook Call URL, i.e. the facade as callers reach it), made by the
// engine because a page of the console may only talk to its own origin. The
// caller's credentials come from one of the company's connections — decrypted
// here, for this one request, and only when the connection may send them to
// the endpoint's host — or as typed for this try. Neither they nor the flow's
// secret are logged, stored or returned; the answer is what the caller got.
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConnectionType } from '../../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import type { TryFlowRequest } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { EXECUTION_ID_HEADER, OUTCOME_HEADER } from '../../../common/webhook-answer-headers.ts';
import { connectionKind, MAX_SYNC_TIMEOUT_SECONDS } from '../../../flow/index.ts';
import { basicCredentials } from '../../../flow/connection-kinds/http-basic.ts';
import { connectionAllows } from '../../../flow/connection-pin.ts';
import { resolveConnection } from '../connections/connections.ts';
import { FailedPreconditionError, InvalidArgumentError, UnavailableError } from '../../errors.ts';
import type { SecretKeyring } from '../../infrastructure/secret-store/secret-keyring.ts';
import { requireCompany } from '../companies/companies.ts';
import { webhookCall } from './webhook-call.ts';

/** The longest sync window, and room for the facade to answer after it. */
const TRY_TIMEOUT_MS = (MAX_SYNC_TIMEOUT_SECONDS + 15) * 1000;
/** More than any answer the panel shows; a larger one is cut. */
const MAX_ANSWER_BYTES = 1024 * 1024;

export interface TryFlowDeps {
  publicUrl: string;
  instance: string;
  keyring: SecretKeyring;
}

export interface TriedCall {
  url: string;
  httpStatus: number;
  contentType: string;
  body: string;
  executionId: string;
  outcome: string;
}

export async function tryFlow(em: EntityManager, deps: TryFlowDeps, request: TryFlowRequest): Promise<TriedCall> {
  const company = await requireCompany(em, request.company);
  const activity = request.activity.trim().toLowerCase();
  if (activity === '') throw new InvalidArgumentError('activity: required');
  const payload = request.payloadJson.trim() === '' ? '{}' : request.payloadJson;
  if (!isJsonObject(payload)) throw new InvalidArgumentError('payload: must be a JSON object, as the endpoint expects');
  const url = webhookCall(deps, company.name, activity).url;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    ...(await callerHeaders(em, deps, request, new URL(url))),
  };
  // The payload's own text, byte for byte: the flow sees exactly what the panel sent.
  const body = `{"activity":${JSON.stringify(activity)},"secret":${JSON.stringify(request.secret)},"payload":${payload}}`;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(TRY_TIMEOUT_MS),
    });
  } catch (error) {
    const reason =
      (error as { cause?: { code?: string } }).cause?.code ?? (error instanceof Error ? error.name : 'failed');
    throw new UnavailableError(
      `the webhook endpoint ${url} could not be reached from the engine (${reason}); is FLOWHOOK_PUBLIC_URL an address the engine reaches?`,
    );
  }
  return {
    url,
    httpStatus: response.status,
    contentType: response.headers.get('content-type') ?? '',
    body: await boundedText(response),
    executionId: response.headers.get(EXECUTION_ID_HEADER) ?? '',
    outcome: response.headers.get(OUTCOME_HEADER) ?? '',
  };
}

async function callerHeaders(
  em: EntityManager,
  deps: TryFlowDeps,
  request: TryFlowRequest,
  url: URL,
): Promise<Record<string, string>> {
  const caller = request.caller;
  if (caller.case === 'basic')
    return { authorization: `Basic ${basicCredentials(caller.value.user, caller.value.accessKey)}` };
  if (caller.case !== 'connection') return {};
  const connection = await resolveConnection(em, deps.keyring, request.company, caller.value);
  if (connection.type !== ConnectionType.BASIC && connection.type !== ConnectionType.BEARER) {
    throw new InvalidArgumentError(
      `connection "${connection.name}" is not of type basic or bearer: the endpoint takes Basic or Bearer credentials`,
    );
  }
  // A connection's credentials go only where the connection says (its base URL or allowed hosts), here as for a flow's request.
  if (!connectionAllows(connection.settings, url)) {
    throw new FailedPreconditionError(
      `connection "${connection.name}" may not send its credentials to ${url.origin}: add that origin to its base URL or allowed hosts to call the endpoint with it`,
    );
  }
  return connectionKind(connection.type)!.authenticate(
    { name: connection.name, settings: connection.settings, secret: connection.secret },
    NO_SERVICES,
  );
}

/** Basic and Bearer need none of the worker's I/O. */
const NO_SERVICES = {
  cachedToken: () => Promise.reject(new Error('not available to a try')),
  send: () => Promise.reject(new Error('not available to a try')),
};

function isJsonObject(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value);
  } catch {
    return false;
  }
}

async function boundedText(response: Response): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body ?? []) {
    chunks.push(chunk);
    size += chunk.byteLength;
    // Leaving the loop cancels the rest of the body.
    if (size > MAX_ANSWER_BYTES) break;
  }
  return new TextDecoder().decode(Buffer.concat(chunks).subarray(0, MAX_ANSWER_BYTES));
}
