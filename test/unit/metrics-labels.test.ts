// Label values stay bounded: closed vocabularies fold anything else into
// `other`, free values (company, activity) are capped, and the engine labels a
// call with a flow only once the lookup resolved one.
import test from 'ava';
import { Code, ConnectError } from '@connectrpc/connect';
import {
  BoundChildren,
  BoundedPairs,
  BoundedValues,
  closedValues,
  OTHER,
  statusLabel,
  UNKNOWN,
} from '../../common/metrics/label-values.ts';
import { createEngineMetrics } from '../../engine/domain/metrics/engine-metrics.ts';
import { NotFoundError, UnauthenticatedError } from '../../engine/errors.ts';

test('a closed vocabulary keeps its values and folds the rest into other; nothing reads unknown', (t) => {
  const kind = closedValues(['set', 'respond'] as const);
  t.is(kind('set'), 'set');
  t.is(kind('rm -rf /'), OTHER);
  t.is(kind(''), UNKNOWN);
  t.is(kind(undefined), UNKNOWN);
});

test('bounded values keep the first ones and count later ones as other', (t) => {
  const values = new BoundedValues(2);
  t.is(values.value('a'), 'a');
  t.is(values.value('b'), 'b');
  t.is(values.value('c'), OTHER);
  t.is(values.value('a'), 'a', 'a value seen before keeps its series');
  t.is(values.value('x'.repeat(300)), OTHER, 'too long to be a name of ours');
  t.is(values.value(''), UNKNOWN);
});

test('bounded pairs keep the first pairs as they are, later ones other in both, a missing value unknown in both', (t) => {
  const pairs = new BoundedPairs(2);
  t.deepEqual(pairs.labels('acme', 'order'), ['acme', 'order']);
  t.deepEqual(pairs.labels('acme', 'refund'), ['acme', 'refund']);
  t.deepEqual(pairs.labels('globex', 'order'), [OTHER, OTHER]);
  t.deepEqual(pairs.labels('acme', 'order'), ['acme', 'order'], 'a pair seen before keeps its series');
  t.deepEqual(pairs.labels(undefined, 'order'), [UNKNOWN, UNKNOWN]);
  t.deepEqual(pairs.labels('acme', ''), [UNKNOWN, UNKNOWN]);
});

test('a status label is a status code or other', (t) => {
  t.is(statusLabel(418), '418');
  t.is(statusLabel(99), OTHER);
  t.is(statusLabel(600), OTHER);
  t.is(statusLabel(Number.NaN), OTHER);
});

test('bound children are made once per combination of values', (t) => {
  let made = 0;
  const children = new BoundChildren((a, b) => ({ a, b, serial: ++made }));
  t.is(children.get('x', 'y'), children.get('x', 'y'));
  t.not(children.get('x', 'y'), children.get('x', 'z'));
  t.is(made, 2);
});

test('the engine labels a call with its flow only after the lookup found it', async (t) => {
  const metrics = createEngineMetrics();
  try {
    // Refused before the lookup (an unknown activity): the caller's words never become labels.
    metrics.webhookCall().failed(new NotFoundError('No published flow is registered for activity "evil"'));
    const resolved = metrics.webhookCall();
    resolved.flowResolved('Acme', 'orders.created', 'WAIT_FOR_RESPONSE_STEP');
    resolved.failed(new UnauthenticatedError('Unauthorized', 'secret_mismatch'));
    const answered = metrics.webhookCall();
    answered.flowResolved('Acme', 'orders.created', 'INSTANT_RETURN');
    answered.answered('INSTANT_RETURN');
    metrics.webhookCall().failed(new ConnectError('down', Code.Unavailable));
    const text = await metrics.registry.text();
    t.regex(
      text,
      /flowhook_engine_webhook_calls_total\{company="unknown",activity="unknown",mode="unknown",outcome="refused",code="not_found"\} 1/,
    );
    t.regex(
      text,
      /flowhook_engine_webhook_calls_total\{company="Acme",activity="orders.created",mode="sync",outcome="refused",code="unauthenticated"\} 1/,
    );
    t.regex(
      text,
      /flowhook_engine_webhook_calls_total\{company="Acme",activity="orders.created",mode="instant",outcome="instant_return",code="ok"\} 1/,
    );
    t.regex(
      text,
      /flowhook_engine_webhook_calls_total\{company="unknown",activity="unknown",mode="unknown",outcome="failed",code="unavailable"\} 1/,
    );
    t.notRegex(text, /evil/);
  } finally {
    metrics.registry.close();
  }
});

test('cache names outside the known set read other', async (t) => {
  const metrics = createEngineMetrics();
  try {
    metrics.cacheLookups('flows')(true);
    metrics.cacheLookups('something-new')(false);
    const text = await metrics.registry.text();
    t.regex(text, /flowhook_engine_cache_lookups_total\{cache="flows",result="hit"\} 1/);
    t.regex(text, /flowhook_engine_cache_lookups_total\{cache="other",result="miss"\} 1/);
  } finally {
    metrics.registry.close();
  }
});

test('provider-route calls are labelled by scheme and mode only, never by the caller-written company or activity', async (t) => {
  const metrics = createEngineMetrics();
  try {
    metrics.directCall().failed(new NotFoundError('No provider route at this address'));
    const refused = metrics.directCall();
    refused.routeResolved('stripe', 'INSTANT_RETURN');
    refused.failed(new UnauthenticatedError('Unauthorized', 'signature_mismatch'));
    const answered = metrics.directCall();
    answered.routeResolved('slack', 'WAIT_FOR_RESPONSE_STEP');
    answered.answered('url_verification');
    const odd = metrics.directCall();
    odd.routeResolved('evil-scheme', 'INSTANT_RETURN');
    odd.answered('INSTANT_RETURN');
    const text = await metrics.registry.text();
    t.regex(
      text,
      /flowhook_engine_direct_calls_total\{scheme="unknown",mode="unknown",outcome="refused",code="not_found"\} 1/,
    );
    t.regex(
      text,
      /flowhook_engine_direct_calls_total\{scheme="stripe",mode="instant",outcome="refused",code="unauthenticated"\} 1/,
    );
    t.regex(
      text,
      /flowhook_engine_direct_calls_total\{scheme="slack",mode="sync",outcome="url_verification",code="ok"\} 1/,
    );
    t.regex(
      text,
      /flowhook_engine_direct_calls_total\{scheme="unknown",mode="instant",outcome="instant_return",code="ok"\} 1/,
    );
    t.regex(text, /flowhook_engine_rate_limited_total\{limit="hook_route"\} 0/);
    t.notRegex(text, /evil/);
  } finally {
    metrics.registry.close();
  }
});
