// The engine's caller checks name why they refuse (for the log line only):
// the caller still gets a bare "Unauthorized" over Connect and gRPC, without
// the reason in the message or the metadata.
import test from 'ava';
import pino from 'pino';
import { create } from '@bufbuild/protobuf';
import { Code } from '@connectrpc/connect';
import { CallerSchema } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { PermissionDeniedError, UnauthenticatedError } from '../../engine/errors.ts';
import { toConnectError } from '../../engine/edges/rpc/error-interceptor.ts';
import {
  admitApplication,
  admitServiceUser,
  claimedCaller,
} from '../../engine/domain/callers/caller-authentication.ts';
import type { ApplicationSnapshot, ServiceUserSnapshot } from '../../engine/domain/callers/caller-directory.ts';

const NOW = new Date('2030-01-01T12:00:00Z');
const user = (changes: Partial<ServiceUserSnapshot> = {}): ServiceUserSnapshot => ({
  id: 'u1',
  name: 'svc',
  accessKeyHash: 'h',
  accessKeyExpiresAt: null,
  enabled: true,
  grants: [],
  ...changes,
});
const ISSUER = 'https://idp.example.test/realms/a';
const app = (changes: Partial<ApplicationSnapshot> = {}): ApplicationSnapshot => ({
  id: 'a1',
  clientId: 'erp',
  issuer: ISSUER,
  tenantId: null,
  enabled: true,
  consentGranted: true,
  grants: [],
  ...changes,
});
const token = (changes: { issuer?: string; tenantId?: string } = {}) => ({ issuer: ISSUER, tenantId: '', ...changes });

function reasonOf(check: () => void): string | undefined {
  try {
    check();
  } catch (error) {
    if (error instanceof UnauthenticatedError) return error.reason;
    throw error;
  }
  return undefined;
}

test('service users: unknown, wrong key, disabled, expired — a wrong key is named before the state', (t) => {
  t.is(
    reasonOf(() => admitServiceUser(undefined, false, NOW)),
    'unknown_user',
  );
  t.is(
    reasonOf(() => admitServiceUser(user(), false, NOW)),
    'bad_key',
  );
  t.is(
    reasonOf(() => admitServiceUser(user({ enabled: false, accessKeyExpiresAt: NOW.getTime() - 1 }), false, NOW)),
    'bad_key',
  );
  t.is(
    reasonOf(() => admitServiceUser(user({ enabled: false, accessKeyExpiresAt: NOW.getTime() - 1 }), true, NOW)),
    'user_disabled',
  );
  t.is(
    reasonOf(() => admitServiceUser(user({ accessKeyExpiresAt: NOW.getTime() }), true, NOW)),
    'key_expired',
  );
  t.is(
    reasonOf(() => admitServiceUser(user({ accessKeyExpiresAt: NOW.getTime() + 1 }), true, NOW)),
    undefined,
  );
});

test('applications: unknown, without consent, disabled', (t) => {
  t.is(
    reasonOf(() => admitApplication(undefined, token())),
    'unknown_app',
  );
  t.is(
    reasonOf(() => admitApplication([], token())),
    'unknown_app',
  );
  t.is(
    reasonOf(() => admitApplication([app({ consentGranted: false, enabled: false })], token())),
    'app_not_consented',
  );
  t.is(
    reasonOf(() => admitApplication([app({ enabled: false })], token())),
    'app_disabled',
  );
  t.is(
    reasonOf(() => admitApplication([app()], token())),
    undefined,
  );
});

test('applications are bound to their issuer (a trailing slash aside) and, when registered, their tenant', (t) => {
  t.is(
    reasonOf(() => admitApplication([app()], token({ issuer: 'https://idp.example.test/realms/b' }))),
    'app_issuer_mismatch',
  );
  t.is(
    reasonOf(() => admitApplication([app()], token({ issuer: '' }))),
    'app_issuer_mismatch',
    'no issuer is no match',
  );
  t.is(
    reasonOf(() => admitApplication([app({ consentGranted: false })], token({ issuer: 'https://other.test' }))),
    'app_issuer_mismatch',
    'named before consent',
  );
  t.is(
    reasonOf(() => admitApplication([app()], token({ issuer: `${ISSUER}/` }))),
    undefined,
  );
  t.is(
    reasonOf(() => admitApplication([app({ issuer: null })], token())),
    'app_issuer_unset',
  );
  t.is(
    reasonOf(() => admitApplication([app({ issuer: 'https://other.test' }), app({ id: 'a2', issuer: null })], token())),
    'app_issuer_unset',
  );
  const twoIssuers = [app({ id: 'a1', issuer: 'https://other.test' }), app({ id: 'a2' })];
  t.is(admitApplication(twoIssuers, token()).id, 'a2', 'the registration under the token issuer');
  t.is(
    reasonOf(() => admitApplication([app({ tenantId: 'tenant-1' })], token({ tenantId: 'tenant-2' }))),
    'app_tenant_mismatch',
  );
  t.is(
    reasonOf(() => admitApplication([app({ tenantId: 'tenant-1' })], token())),
    'app_tenant_mismatch',
    'a token without tid',
  );
  t.is(
    reasonOf(() => admitApplication([app({ tenantId: 'tenant-1' })], token({ tenantId: 'tenant-1' }))),
    undefined,
  );
  t.is(
    reasonOf(() => admitApplication([app()], token({ tenantId: 'any' }))),
    undefined,
    'no tenant registered: any',
  );
});

test('the claimed caller is a name or client id, never the key', (t) => {
  t.deepEqual(
    claimedCaller(create(CallerSchema, { identity: { case: 'basic', value: { userName: 'svc', accessKey: 'k3y' } } })),
    { user: 'svc' },
  );
  t.deepEqual(
    claimedCaller(
      create(CallerSchema, {
        identity: { case: 'application', value: { clientId: 'erp', tenantId: 't', issuer: 'i' } },
      }),
    ),
    { clientId: 'erp', issuer: 'i' },
  );
  t.deepEqual(claimedCaller(create(CallerSchema, {})), {});
  t.deepEqual(claimedCaller(undefined), {});
});

test('the reason does not travel to the caller', (t) => {
  const logger = pino({ level: 'silent' });
  const unauthenticated = toConnectError(new UnauthenticatedError('Unauthorized', 'key_expired'), logger, 'Invoke');
  t.is(unauthenticated.code, Code.Unauthenticated);
  t.is(unauthenticated.rawMessage, 'Unauthorized');
  t.deepEqual([...unauthenticated.metadata.keys()], []);
  const denied = toConnectError(
    new PermissionDeniedError('Caller "svc" lacks the permission set "FLOW ALL" for company "Acme"', {
      reason: 'missing_permission_set',
      permissionSet: 'FLOW ALL',
    }),
    logger,
    'Invoke',
  );
  t.is(denied.code, Code.PermissionDenied);
  t.false(denied.rawMessage.includes('missing_permission_set'));
  t.deepEqual([...denied.metadata.keys()], []);
});
