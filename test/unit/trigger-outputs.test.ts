// The provider route's trigger outputs as the workflow builds them, and the
// publish warning for a flow that reads them without a direct route.
import test from 'ava';
import { decodeUrlEncoded, triggerOutputs } from '../../flow/trigger-outputs.ts';
import { validateFlow, type FlowExecutionInput } from '../../flow/index.ts';
import type { FlowJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';

const input = (
  payloadJson: string,
  direct?: Partial<NonNullable<FlowExecutionInput['direct']>>,
): FlowExecutionInput => ({
  company: 'Acme',
  flowName: 'f',
  flowVersion: 1,
  steps: [],
  trigger: {
    activity: 'a',
    description: 'd',
    responseMode: 'INSTANT_RETURN',
    syncTimeoutMs: 1000,
    defaultResponse: { statusCode: 200, contentType: 'application/json' },
    doNotLogPayload: false,
  },
  payloadJson,
  caller: 'provider:stripe',
  ...(direct
    ? {
        direct: {
          method: 'POST',
          headers: {},
          query: '',
          contentType: '',
          bodyEncoding: 'text',
          provider: { scheme: 'stripe' },
          ...direct,
        },
      }
    : {}),
});

test('the OData route keeps its outputs and has none of the provider ones', (t) => {
  t.deepEqual(triggerOutputs(input('{"a": 1}')), {
    Payload: { a: 1 },
    PayloadJson: '{"a": 1}',
    Activity: 'a',
    Description: 'd',
  });
});

test('Payload is Json, else Form, else Body; Json and Form only for their content types', (t) => {
  const json = triggerOutputs(
    input('{"id": "evt_1"}', {
      contentType: 'application/vnd.api+json',
      provider: { scheme: 'stripe', eventId: 'evt_1' },
    }),
  );
  t.deepEqual(json.Json, { id: 'evt_1' });
  t.deepEqual(json.Payload, { id: 'evt_1' });
  t.is(json.Form, undefined);
  t.deepEqual(json.Provider, { Scheme: 'stripe', EventId: 'evt_1' });
  const form = triggerOutputs(
    input('a=1&a=2&b=x+y', { contentType: 'application/x-www-form-urlencoded', query: 'q=%E2%9C%93' }),
  );
  t.deepEqual(form.Payload, { a: ['1', '2'], b: 'x y' });
  t.deepEqual(form.Query, { q: '✓' });
  t.deepEqual(form.Provider, { Scheme: 'stripe' });
  const text = triggerOutputs(input('{"not": "parsed"}', { contentType: 'text/plain' }));
  t.is(text.Payload, '{"not": "parsed"}');
  t.is(text.Json, undefined);
  const broken = triggerOutputs(input('{oops', { contentType: 'application/json' }));
  t.is(broken.Payload, '{oops', 'a body that claims JSON but is not stays available as text');
  const binary = triggerOutputs(input('/w==', { contentType: 'application/json', bodyEncoding: 'base64' }));
  t.is(binary.Json, undefined, 'base64 text is never parsed as the body');
  t.is(binary.BodyEncoding, 'base64');
});

test('url-encoded decoding: repeated keys in order, bad escapes kept as written, __proto__ stays data', (t) => {
  const decoded = decodeUrlEncoded('k=1&k=2&k=3&bad=%E2%28&flag&__proto__=x&&=v');
  t.deepEqual(decoded.k, ['1', '2', '3']);
  t.is(decoded.bad, '%E2%28');
  t.is(decoded.flag, '');
  t.is(decoded[''], 'v');
  t.true(Object.hasOwn(decoded, '__proto__'));
  t.is(Object.getPrototypeOf(decoded), Object.prototype);
});

test('publishing warns when a flow without direct reads provider-only outputs', (t) => {
  const flow = (direct: boolean): FlowJson => ({
    company: 'Acme',
    name: 'f',
    trigger: { webhook: { activity: 'a', ...(direct ? { direct: { verify: { github: {} } } } : {}) } },
    steps: [{ log: { message: '{{Trigger.Headers.x-github-event}} ${Trigger.Body}' } }],
  });
  const warned = validateFlow(flow(false));
  t.deepEqual(warned.errors, []);
  t.true(
    warned.warnings.some((warning) => warning.startsWith('Trigger.Headers, Trigger.Body: only the provider route')),
    warned.warnings.join('\n'),
  );
  t.deepEqual(validateFlow(flow(true)).warnings, []);
});
