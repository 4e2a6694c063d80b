// Why a delivery ended as it did (facade/delivery-reasons.ts): refusal reasons of
// whoever decided (the facade's own, the engine's from Connect metadata), and
// the closed status table for the rest.
import test from 'ava';
import { Code, ConnectError } from '@connectrpc/connect';
import { REFUSAL_REASON_METADATA } from '../../common/rpc-metadata.ts';
import { CallerRefusedError } from '../../facade/caller-credentials.ts';
import { deliveryOutcome, deliveryReason, refusalReasonOf, STATUS_REASONS } from '../../facade/delivery-reasons.ts';

test('outcomes: accepted without an error, refused for a 4xx, failed for a 5xx or a caller gone', (t) => {
  t.is(deliveryOutcome(false, 200), 'accepted');
  t.is(deliveryOutcome(false, 202), 'accepted');
  t.is(deliveryOutcome(true, 401), 'refused');
  t.is(deliveryOutcome(true, 403), 'refused');
  t.is(deliveryOutcome(true, 429), 'refused');
  t.is(deliveryOutcome(true, 404), 'refused');
  t.is(deliveryOutcome(true, 499), 'failed');
  t.is(deliveryOutcome(true, 503), 'failed');
});

test("a refusal's reason comes from the facade's error or the engine's metadata, from the closed set only", (t) => {
  t.is(refusalReasonOf(new CallerRefusedError({ reason: 'missing_credentials' })), 'missing_credentials');
  const engine = new ConnectError('Unauthorized', Code.Unauthenticated, {
    [REFUSAL_REASON_METADATA]: 'secret_mismatch',
  });
  t.is(refusalReasonOf(engine), 'secret_mismatch');
  const made = new ConnectError('Unauthorized', Code.Unauthenticated, { [REFUSAL_REASON_METADATA]: 'drop table' });
  t.is(refusalReasonOf(made), undefined);
  t.is(refusalReasonOf(new ConnectError('x', Code.NotFound)), undefined);
});

test('the status table names every failure; 401 without a reason is unauthorized', (t) => {
  t.is(deliveryReason('accepted', 200, undefined), '');
  t.is(deliveryReason('refused', 401, 'bad_key'), 'bad_key');
  t.is(deliveryReason('refused', 401, undefined), 'unauthorized');
  t.is(deliveryReason('refused', 429, undefined), 'rate_limited');
  t.is(deliveryReason('refused', 422, undefined), 'idempotency_conflict');
  t.is(deliveryReason('refused', 418, undefined), 'client_error');
  t.is(deliveryReason('failed', 499, undefined), 'client_closed');
  t.is(deliveryReason('failed', 502, undefined), 'server_error');
  for (const reason of STATUS_REASONS.values()) t.regex(reason, /^[a-z][a-z0-9_]*$/);
});
