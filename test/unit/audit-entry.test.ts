// The audit log's allowlist (engine/domain/audit/audited-methods.ts) and what it
// copies from a request (engine/domain/audit/audit-entry.ts): every mutating admin
// RPC is listed and no read is, every listed field exists and none names a
// secret, and a request's secret never reaches the entry.
import test from 'ava';
import { create, toJson, type DescMessage } from '@bufbuild/protobuf';
import { timestampFromDate } from '@bufbuild/protobuf/wkt';
import { AlertService } from '../../proto/gen/flowhook/engine/v1/alert_service_pb.js';
import { AppAdminService } from '../../proto/gen/flowhook/engine/v1/app_admin_service_pb.js';
import { DeliveryService } from '../../proto/gen/flowhook/engine/v1/delivery_service_pb.js';
import { RetentionAdminService } from '../../proto/gen/flowhook/engine/v1/retention_service_pb.js';
import {
  ConnectionAdminService,
  SetConnectionRequestSchema,
} from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { ConsoleSessionAdminService } from '../../proto/gen/flowhook/engine/v1/console_service_pb.js';
import {
  ExecutionService,
  RerunExecutionsRequestSchema,
} from '../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { FlowAdminService } from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import {
  HookSecretAdminService,
  SetHookSecretRequestSchema,
} from '../../proto/gen/flowhook/engine/v1/hook_secret_admin_service_pb.js';
import { SecretStoreAdminService } from '../../proto/gen/flowhook/engine/v1/secret_store_admin_service_pb.js';
import { ServiceAccountAdminService } from '../../proto/gen/flowhook/engine/v1/service_account_admin_service_pb.js';
import { UserAdminService } from '../../proto/gen/flowhook/engine/v1/user_admin_service_pb.js';
import { auditEntryOf, MAX_FIELD_CHARS, MAX_LIST_ITEMS } from '../../engine/domain/audit/audit-entry.ts';
import { AUDITED_METHODS, auditedMethod, isForbiddenField } from '../../engine/domain/audit/audited-methods.ts';

const ADMIN_SERVICES = [
  FlowAdminService,
  AppAdminService,
  UserAdminService,
  ConnectionAdminService,
  SecretStoreAdminService,
  ServiceAccountAdminService,
  HookSecretAdminService,
  ExecutionService,
  ConsoleSessionAdminService,
  AlertService,
  DeliveryService,
  RetentionAdminService,
];

/** Reads name themselves (List…, Get…, and Check…, which runs a check and stores nothing); everything else changes something. */
const isRead = (name: string) => /^(List|Get|Check)[A-Z]/.test(name);

test('every mutating admin RPC is audited, and no read is', (t) => {
  for (const service of ADMIN_SERVICES) {
    for (const method of service.methods) {
      const audited = auditedMethod(service.typeName, method.name);
      if (isRead(method.name)) t.is(audited, undefined, `${service.typeName}/${method.name} is a read`);
      else t.truthy(audited, `${service.typeName}/${method.name} changes something but is not in the audit allowlist`);
    }
  }
});

test('the allowlist names only methods that exist, each with a distinct action', (t) => {
  const actions = new Set<string>();
  for (const [typeName, methods] of AUDITED_METHODS) {
    const service = ADMIN_SERVICES.find((s) => s.typeName === typeName);
    t.truthy(service, typeName);
    for (const [name, audited] of Object.entries(methods)) {
      t.truthy(
        service?.methods.find((m) => m.name === name),
        `${typeName}/${name} does not exist`,
      );
      t.regex(audited.action, /^[a-z-]+\.[a-z-]+$/);
      t.false(actions.has(audited.action), `${audited.action} twice`);
      actions.add(audited.action);
    }
  }
});

test('every allowlisted field exists in its request and names nothing secret', (t) => {
  for (const service of ADMIN_SERVICES) {
    for (const method of service.methods) {
      const audited = auditedMethod(service.typeName, method.name);
      if (!audited) continue;
      for (const path of [audited.company, audited.target, ...(audited.details ?? [])].filter(
        (p): p is string => p !== undefined,
      )) {
        t.false(isForbiddenField(path), `${method.name}: ${path}`);
        t.true(hasJsonPath(method.input, path), `${method.name}: no field ${path}`);
      }
    }
  }
});

test('forbidden words are caught whatever their case or position', (t) => {
  for (const path of [
    'secret',
    'generatedSecret',
    'flow.apiKey',
    'TOKEN',
    'password',
    'payloadJson',
    'settings.value',
    'clientCertificate',
  ])
    t.true(isForbiddenField(path), path);
  for (const path of ['company', 'flow.name', 'clientId', 'permissionSet', 'overlapSeconds'])
    t.false(isForbiddenField(path), path);
});

test('a hook secret rotation keeps company, activity and settings, never the secret', (t) => {
  const secret = 'whsec_dGhpcyBpcyBhIGtub3duIHNlY3JldCB2YWx1ZQ==';
  const request = create(SetHookSecretRequestSchema, {
    company: 'Acme',
    activity: 'orders.paid',
    secret,
    overlapSeconds: 3600,
  });
  const entry = auditEntryOf(
    auditedMethod(HookSecretAdminService.typeName, 'SetHookSecret')!,
    toJson(SetHookSecretRequestSchema, request),
  );
  t.deepEqual(entry, {
    action: 'hook-secret.set',
    company: 'Acme',
    target: 'orders.paid',
    details: { overlapSeconds: 3600 },
  });
  t.false(JSON.stringify(entry).includes(secret));
});

test('a connection change copies neither its secret nor its settings', (t) => {
  const request = create(SetConnectionRequestSchema, {
    company: 'Acme',
    name: 'erp',
    secret: 'hunter2-very-secret',
    settings: { baseUrl: 'https://erp.example.test/?token=abc' },
  });
  const entry = auditEntryOf(
    auditedMethod(ConnectionAdminService.typeName, 'SetConnection')!,
    toJson(SetConnectionRequestSchema, request),
  );
  t.deepEqual(entry, { action: 'connection.set', company: 'Acme', target: 'erp', details: {} });
});

test('a listed path that names a forbidden word is skipped even when listed', (t) => {
  const entry = auditEntryOf(
    { action: 'x.y', company: 'company', target: 'secret', details: ['token', 'version'] },
    { company: 'Acme', secret: 's3cr3t', token: 't0k3n', version: 3 },
  );
  t.deepEqual(entry, { action: 'x.y', company: 'Acme', target: undefined, details: { version: 3 } });
});

test('texts and lists are bounded; nested objects are never copied whole', (t) => {
  const long = 'a'.repeat(MAX_FIELD_CHARS * 3);
  const hosts = Array.from({ length: MAX_LIST_ITEMS + 20 }, (_, i) => `host-${i}.example.test`);
  const entry = auditEntryOf(
    { action: 'x.y', company: 'company', details: ['allow', 'nested'] },
    { company: long, allow: hosts, nested: { anything: 'inside' } },
  );
  t.is(entry.company?.length, MAX_FIELD_CHARS);
  t.true(entry.company?.endsWith('…'));
  t.deepEqual(entry.details, { allow: hosts.slice(0, MAX_LIST_ITEMS) });
});

test('a bulk re-run keeps its filters as proto3 JSON (times as RFC 3339)', (t) => {
  const since = new Date('2026-11-23T18:00:00Z');
  const request = create(RerunExecutionsRequestSchema, {
    company: 'Acme',
    activity: 'orders.paid',
    statuses: ['failed'],
    since: timestampFromDate(since),
    dryRun: true,
  });
  const entry = auditEntryOf(
    auditedMethod(ExecutionService.typeName, 'RerunExecutions')!,
    toJson(RerunExecutionsRequestSchema, request),
  );
  t.deepEqual(entry, {
    action: 'execution.rerun-many',
    company: 'Acme',
    target: 'orders.paid',
    details: { statuses: ['failed'], since: '2026-11-23T18:00:00Z', dryRun: true },
  });
});

/** Whether `a.b` names fields (by JSON name) of `message`, through nested messages. */
function hasJsonPath(message: DescMessage, path: string): boolean {
  const [head, ...rest] = path.split('.');
  const field = message.fields.find((f) => f.jsonName === head);
  if (!field) return false;
  if (rest.length === 0) return true;
  return field.fieldKind === 'message' && hasJsonPath(field.message, rest.join('.'));
}

test('a state change says which: a disable (enabled false, left out of proto3 JSON) is recorded as enabled false', (t) => {
  const disable = auditEntryOf(auditedMethod('flowhook.engine.v1.UserAdminService', 'SetUserState')!, { name: 'shop' });
  t.deepEqual(disable.details, { enabled: false });
  const enable = auditEntryOf(
    auditedMethod('flowhook.engine.v1.ServiceAccountAdminService', 'SetServiceAccountState')!,
    { name: 'ci', enabled: true },
  );
  t.deepEqual(enable.details, { enabled: true });
});
