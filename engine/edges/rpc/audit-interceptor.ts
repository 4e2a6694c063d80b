// Records every audited admin call (audited-methods.ts) once it has ended:
// who called (the account the service account gate admitted, and for a call
// made in the console the person signed in, engine/edges/console/), what, about
// which company and target, and how it ended — success or the Connect code
// of the failure, since a refused or failed attempt is part of the story too.
// Calls the gate itself refused (no or wrong token, wrong scope) never get
// here: they name no proven account, so they stay in the `rejected RPC` log
// lines rather than letting anyone without a token fill this table.
//
// A call refused before it ran because the caller has no say in the company
// it names (the console's roles check, refusedOutsideItsCompanies) is not
// that company's business: its name and target are text the caller chose, so
// the entry goes to the deployment's log (no company), under the caller, with
// the company it named among the details — never into that company's log.
//
// It sits outside the error interceptor, so it sees the final Connect code.
// The row is written before the answer goes back, so a caller that lists the
// audit log right after its change finds it. Writing is fail-open: the change
// is already committed in its own transaction, so failing the call would tell
// the caller a change did not happen when it did; a failed write is a warning
// in the log instead (the method and the database's error code, no values).
import { toJson, type DescMessage, type Message } from '@bufbuild/protobuf';
import { ConnectError, type Interceptor } from '@connectrpc/connect';
import { codeToString } from '@connectrpc/connect/protocol-connect';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { serviceAccountOf } from '../../domain/callers/call-context.ts';
import { AUDIT_PERSON } from '../../domain/callers/call-context.ts';
import { auditEntryOf, type AuditEntry } from '../../domain/audit/audit-entry.ts';
import { auditedMethod } from '../../domain/audit/audited-methods.ts';
import { recordAuditEvent, type RecordedCall } from '../../domain/audit/audit-log.ts';

export type AuditWriter = (call: RecordedCall) => Promise<void>;

/** Refusals made before the call ran, for a company outside the caller's reach (see the header). */
const refusedOutside = new WeakSet<Error>();

/** Marks a refusal as one of a call outside the caller's companies: audited in the deployment's log, not in the company's. */
export function refusedOutsideItsCompanies<E extends Error>(error: E): E {
  refusedOutside.add(error);
  return error;
}

export function auditInterceptor(
  orm: MikroORM,
  logger: Logger,
  write: AuditWriter = (call) => recordAuditEvent(orm, call),
): Interceptor {
  return (next) => async (request) => {
    // Every audited method is unary; streams pass untouched.
    if (request.stream) return next(request);
    const audited = auditedMethod(request.service.typeName, request.method.name);
    if (!audited) return next(request);
    const at = new Date();
    // Read before the call: the entry describes what was asked, whatever the service did with the message.
    const entry = auditEntryOf(audited, requestJson(request.method.input, request.message));
    // The gate's verdict travels as a context value; serviceAccountOf reads only `values`.
    const account = serviceAccountOf({ values: request.contextValues }).name;
    const person = request.contextValues.get(AUDIT_PERSON);
    const method = `${request.service.typeName}/${request.method.name}`;
    const save = async (outcome: string, outsideItsCompanies = false) => {
      const placed = outsideItsCompanies ? inDeploymentLog(entry) : entry;
      try {
        await write({ ...placed, at, account, person, method, outcome });
      } catch (error) {
        logger.warn({ method, action: entry.action, reason: reasonOf(error) }, 'audit event not recorded');
      }
    };
    try {
      const response = await next(request);
      await save('ok');
      return response;
    } catch (error) {
      await save(
        error instanceof ConnectError ? codeToString(error.code) : 'internal',
        error instanceof Error && refusedOutside.has(error),
      );
      throw error;
    }
  };
}

/** The entry without a company: the company the call named is kept as a detail, for the deployment's admins. */
function inDeploymentLog(entry: AuditEntry): AuditEntry {
  const { company, ...rest } = entry;
  return company === undefined ? rest : { ...rest, details: { ...rest.details, namedCompany: company } };
}

/** The request as proto3 JSON; should a message not convert, the event still names the action (with no fields). */
function requestJson(schema: DescMessage, message: Message): unknown {
  try {
    return toJson(schema, message);
  } catch {
    return {};
  }
}

/** The error's type and database code only: driver messages can quote the statement's values. */
function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  const name = error instanceof Error ? error.name : typeof error;
  return typeof code === 'string' ? `${name} (${code})` : name;
}
