// The engine's caller checks name why they refuse (for the log line only):
// the caller still gets a bare "Unauthorized" over Connect and gRPC, without
// the reason in the message or the metadata.
import test from 'ava';
import pino from 'pino';
import { create } from '@bufbuild/protobuf';
import { Code } from '@connectrpc/connect';
import { CallerSchema } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { PermissionDeniedError, UnauthenticatedError } from '../../engine/errors.ts';
import { toConnectError } from '../../engine/rpc/error-interceptor.ts';
import { admitApplication, admitServiceUser, claimedCaller } from '../../engine/webhook/caller-authentication.ts';
import type { ApplicationSnapshot, ServiceUserSnapshot } from '../../engine/webhook/caller-directory.ts';

const NOW = new Date('2030-01-01T12:00:00Z');
const user = (changes: Partial<ServiceUserSnapshot> = {}): ServiceUserSnapshot => ({ id: 'u1', name: 'svc', accessKeyHash: 'h', accessKeyExpiresAt: null, enabled: true, grants: [], ...changes });
const app = (changes: Partial<ApplicationSnapshot> = {}): ApplicationSnapshot => ({ id: 'a1', clientId: 'erp', enabled: true, consentGranted: true, grants: [], ...changes });

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
  t.is(reasonOf(() => admitServiceUser(undefined, false, NOW)), 'unknown_user');
  t.is(reasonOf(() => admitServiceUser(user(), false, NOW)), 'bad_key');
  t.is(reasonOf(() => admitServiceUser(user({ enabled: false, accessKeyExpiresAt: NOW.getTime() - 1 }), false, NOW)), 'bad_key');
  t.is(reasonOf(() => admitServiceUser(user({ enabled: false, accessKeyExpiresAt: NOW.getTime() - 1 }), true, NOW)), 'user_disabled');
  t.is(reasonOf(() => admitServiceUser(user({ accessKeyExpiresAt: NOW.getTime() }), true, NOW)), 'key_expired');
  t.is(reasonOf(() => admitServiceUser(user({ accessKeyExpiresAt: NOW.getTime() + 1 }), true, NOW)), undefined);
});

test('applications: unknown, without consent, disabled', (t) => {
  t.is(reasonOf(() => admitApplication(undefined)), 'unknown_app');
  t.is(reasonOf(() => admitApplication(app({ consentGranted: false, enabled: false }))), 'app_not_consented');
  t.is(reasonOf(() => admitApplication(app({ enabled: false }))), 'app_disabled');
  t.is(reasonOf(() => admitApplication(app())), undefined);
});

test('the claimed caller is a name or client id, never the key', (t) => {
  t.deepEqual(claimedCaller(create(CallerSchema, { identity: { case: 'basic', value: { userName: 'svc', accessKey: 'k3y' } } })), { user: 'svc' });
  t.deepEqual(claimedCaller(create(CallerSchema, { identity: { case: 'application', value: { clientId: 'erp', tenantId: 't', issuer: 'i' } } })), { clientId: 'erp' });
  t.deepEqual(claimedCaller(create(CallerSchema, {})), {});
  t.deepEqual(claimedCaller(undefined), {});
});

test('the reason does not travel to the caller', (t) => {
  const logger = pino({ level: 'silent' });
  const unauthenticated = toConnectError(new UnauthenticatedError('Unauthorized', 'key_expired'), logger, 'Invoke');
  t.is(unauthenticated.code, Code.Unauthenticated);
  t.is(unauthenticated.rawMessage, 'Unauthorized');
  t.deepEqual([...unauthenticated.metadata.keys()], []);
  const denied = toConnectError(new PermissionDeniedError('Caller "svc" lacks the permission set "FLOW ALL" for company "Acme"', { reason: 'missing_permission_set', permissionSet: 'FLOW ALL' }), logger, 'Invoke');
  t.is(denied.code, Code.PermissionDenied);
  t.false(denied.rawMessage.includes('missing_permission_set'));
  t.deepEqual([...denied.metadata.keys()], []);
});
