// The shipped example flows (examples/flows/) that run without outside
// services, published as they are (only the company and, for the bridge, the
// SOAP service URL substituted) and called end to end — what the handbook's
// tutorials and guides show them doing. The provider-route examples are called
// as their providers sign; the invoice payment runs against a stand-in payment
// provider behind its connection.
import { createHmac, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { create, toJson } from '@bufbuild/protobuf';
import {
  ConnectionSettingsSchema,
  ConnectionType,
} from '../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { FlowSchema, type FlowJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { readFlowFile } from '../../bin/cli/flow-file.ts';
import { eventually } from '../support/eventually.ts';
import {
  signGithubRequest,
  signShopify,
  signSlack,
  signStandardV1,
  signStripe,
  standardWebhooksSecret,
  stripeSecret,
  textSecret,
  type Signer,
} from '../support/provider-signers.ts';
import { recordClient } from '../support/record-client.ts';
import { startSoapPriceServer, type SoapPriceServer } from '../../examples/soap-bridge/price-service.ts';
import { INSTANCE, startStack, type TestStack } from '../support/stack.ts';
import { startTargetServer, type TargetServer } from '../support/target-server.ts';
import { callWebhook, createTenant, deployFlow, type Tenant } from '../support/webhook-helpers.ts';

let stack: TestStack;
let tenant: Tenant;
let soap: SoapPriceServer;
let psp: TargetServer;
const secrets: Record<string, string> = {};

/** The provider-route examples, with how their providers sign and the secret each route holds. */
const PROVIDERS: { file: string; activity: string; sign: Signer; secret: string }[] = [
  {
    file: 'providers/stripe-payments.flow.yaml',
    activity: 'payments.stripe',
    sign: signStripe,
    secret: stripeSecret(),
  },
  {
    file: 'providers/github-push.flow.yaml',
    activity: 'ci.github-push',
    sign: signGithubRequest,
    secret: textSecret(),
  },
  {
    file: 'providers/shopify-orders.flow.yaml',
    activity: 'shop.orders-create',
    sign: signShopify,
    secret: textSecret(),
  },
  { file: 'providers/slack-events.flow.yaml', activity: 'chat.slack-events', sign: signSlack, secret: textSecret() },
  {
    file: 'providers/standard-webhooks.flow.yaml',
    activity: 'billing.invoice-events',
    sign: signStandardV1,
    secret: standardWebhooksSecret(),
  },
  { file: 'providers/partner-hmac.flow.yaml', activity: 'partner.events', sign: signPartner, secret: textSecret() },
];

/** partner-hmac.flow.yaml's scheme: base64 HMAC-SHA256 of "{id}.{timestamp}.{body}" after "v1=". */
async function signPartner(body: string, secret: string): Promise<Record<string, string>> {
  const id = `ev_${randomUUID()}`;
  const timestamp = String(Math.floor(Date.now() / 1000));
  const signature = createHmac('sha256', secret).update(`${id}.${timestamp}.${body}`).digest('base64');
  return { 'x-partner-signature': `v1=${signature}`, 'x-partner-timestamp': timestamp, 'x-partner-event-id': id };
}

async function loadExample(file: string, patch: (flow: FlowJson) => void = () => undefined): Promise<FlowJson> {
  const flow = toJson(
    FlowSchema,
    await readFlowFile(fileURLToPath(new URL(`../../examples/flows/${file}`, import.meta.url))),
  ) as FlowJson;
  flow.company = tenant.company;
  patch(flow);
  return flow;
}

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack);
  soap = await startSoapPriceServer();
  // A stand-in payment provider: creates a payment and remembers the notify URL it was given.
  psp = await startTargetServer((request) =>
    request.path === '/v1/payments' ? { status: 201, body: '{"id": "pay_77", "status": "pending"}' } : {},
  );
  await stack.admin.setConnection({
    company: tenant.company,
    name: 'psp',
    settings: create(ConnectionSettingsSchema, { type: ConnectionType.API_KEY, baseUrl: `${psp.url}/v1` }),
    secret: 'psp-test-key',
  });
  secrets.payment = (await deployFlow(stack, await loadExample('payment-callback.flow.yaml'))).secret;
  secrets.order = (await deployFlow(stack, await loadExample('order-import.flow.yaml'))).secret;
  secrets.soap = (
    await deployFlow(
      stack,
      await loadExample('soap-bridge.flow.yaml', (flow) => {
        flow.steps![0]!.httpRequest!.url = `${soap.url}/soap/prices`;
      }),
    )
  ).secret;
  for (const file of [
    'price-quote.flow.yaml',
    'payment-reminder.flow.yaml',
    'order-shipment.flow.yaml',
    'invoice-payment.flow.yaml',
  ]) {
    const flow = await loadExample(file);
    secrets[flow.trigger!.webhook!.activity!] = (await deployFlow(stack, flow)).secret;
  }
  for (const provider of PROVIDERS) {
    await deployFlow(stack, await loadExample(provider.file));
    await stack.admin.setHookSecret({ company: tenant.company, activity: provider.activity, secret: provider.secret });
  }
});
test.after.always(async () => {
  await stack?.close();
  await soap?.close();
  await psp?.close();
});

const call = (activity: string, secret: string, payloadText: string) =>
  callWebhook(stack, { company: tenant.company, activity, secret, auth: tenant.auth, payloadText });

test('payment callback: the provider gets 200 at once and the invoice is marked paid or failed', async (t) => {
  const records = recordClient(stack);
  const scope = (key: string, idempotencyKey = `seed/${key}`) => ({
    company: tenant.company,
    table: 'invoice',
    key,
    caller: 'erp',
    idempotencyKey,
  });
  await records.insertRecord({ scope: scope('INV-100'), data: { amount: 99.5, status: 'open' } });
  await records.insertRecord({ scope: scope('INV-101'), data: { amount: 10, status: 'open' } });

  const paid = await call(
    'payments.provider.callback',
    secrets.payment!,
    '{"invoiceId": "INV-100", "status": "succeeded", "amount": 99.5, "paymentId": "pay_1"}',
  );
  t.is(paid.status, 200);
  t.is(paid.headers.get('x-flowhook-outcome'), 'instant-return');
  t.deepEqual(paid.value, { statusCode: 200, contentType: 'application/json', body: '' });
  await stack.temporal.workflow.getHandle(paid.executionId!).result();
  const invoice = (await records.getRecord({ scope: scope('INV-100', '') })).record!;
  t.like(invoice.data, { status: 'paid', paidAmount: 99.5, paymentId: 'pay_1', amount: 99.5 });
  t.is(invoice.version, 2n);

  const failed = await call(
    'payments.provider.callback',
    secrets.payment!,
    '{"invoiceId": "INV-101", "status": "failed", "paymentId": "pay_2", "reason": "card declined"}',
  );
  await stack.temporal.workflow.getHandle(failed.executionId!).result();
  t.like((await records.getRecord({ scope: scope('INV-101', '') })).record!.data, {
    status: 'payment-failed',
    failureReason: 'card declined',
  });

  const unknown = await call(
    'payments.provider.callback',
    secrets.payment!,
    '{"invoiceId": "INV-404", "status": "succeeded"}',
  );
  t.is(unknown.status, 200, 'Instant return: the caller is answered before the flow runs');
  const error = await t.throwsAsync(stack.temporal.workflow.getHandle(unknown.executionId!).result());
  t.regex(
    String((error?.cause as Error | undefined)?.message),
    /Find the invoice" failed: record get: record "INV-404" of table "invoice" does not exist/,
  );
});

test('order import: 201 with the new order number, the order stored as a record', async (t) => {
  const answer = await call(
    'partners.portal.order',
    secrets.order!,
    '{"orderRef": "PO-1", "customer": "C-7", "lines": [{"sku": "A", "qty": 2}, {"sku": "B", "qty": 1}]}',
  );
  t.is(answer.status, 200, answer.text);
  t.is(answer.value!.statusCode, 201);
  const body = JSON.parse(answer.value!.body);
  t.regex(body.orderNumber, /^SO-[0-9A-F]{10}$/);
  t.is(body.lines, 2);
  const order = (
    await recordClient(stack).getRecord({
      scope: { company: tenant.company, table: 'order', key: 'PO-1', caller: 'test', idempotencyKey: '' },
    })
  ).record!;
  t.like(order.data, { orderNumber: body.orderNumber, customer: 'C-7', status: 'imported' });

  const again = await call(
    'partners.portal.order',
    secrets.order!,
    '{"orderRef": "PO-1", "customer": "C-7", "lines": [{"sku": "A", "qty": 2}]}',
  );
  t.is(again.value!.statusCode, 422);
  t.deepEqual(JSON.parse(again.value!.body), { error: `order PO-1 was already imported as ${body.orderNumber}` });
});

test('order import: 422 inside value with the reason for an invalid order', async (t) => {
  const cases: [string, string][] = [
    ['{"customer": "C-7", "lines": [{"sku": "A", "qty": 1}]}', 'orderRef is required'],
    ['{"orderRef": "PO-2", "lines": [{"sku": "A", "qty": 1}]}', 'customer is required'],
    ['{"orderRef": "PO-2", "customer": "C-7", "lines": []}', 'an order needs at least one line'],
    [
      '{"orderRef": "PO-2", "customer": "C-7", "lines": [{"sku": "A", "qty": 1.5}]}',
      'every line needs a sku and a positive whole qty',
    ],
    [
      '{"orderRef": "PO-2", "customer": "C-7", "lines": [{"sku": "A", "qty": "2"}]}',
      'every line needs a sku and a positive whole qty',
    ],
  ];
  for (const [payload, reason] of cases) {
    const answer = await call('partners.portal.order', secrets.order!, payload);
    t.is(answer.status, 200, `${payload}: ${answer.text}`);
    t.deepEqual(
      answer.value,
      { statusCode: 422, contentType: 'application/json', body: JSON.stringify({ error: reason }) },
      payload,
    );
  }
});

test('SOAP bridge: JSON in, a SOAP request with escaped text out, the XML answer back as JSON', async (t) => {
  const answer = await call('bridge.soap.price', secrets.soap!, '{"sku": "P-1", "quantity": 3}');
  t.is(answer.status, 200, answer.text);
  t.is(answer.value!.statusCode, 200);
  t.deepEqual(JSON.parse(answer.value!.body), { sku: 'P-1', unitPrice: 12.5, currency: 'EUR', total: 37.5 });
  const request = soap.requests.at(-1)!;
  t.is(request.headers.soapaction, '"urn:prices#GetPrice"');
  t.regex(String(request.headers['content-type']), /^text\/xml/);

  const fault = await call('bridge.soap.price', secrets.soap!, '{"sku": "<x & \\"y\\">", "quantity": 1}');
  t.is(fault.value!.statusCode, 502);
  t.regex(soap.requests.at(-1)!.body, /<p:Sku>&lt;x &amp; &quot;y&quot;&gt;<\/p:Sku>/);
  t.deepEqual(JSON.parse(fault.value!.body), {
    error: 'the price service failed',
    fault: 'unknown sku <x & "y">',
    status: 500,
  });
});

test('price quote (the first-flow tutorial): 201 with the total, 422 for an empty basket', async (t) => {
  const quote = await call(
    'shop.quote',
    secrets['shop.quote']!,
    '{"items": [{"price": 2.5, "qty": 4}, {"price": 1.25, "qty": 2}]}',
  );
  t.is(quote.status, 200, quote.text);
  t.deepEqual(quote.value, { statusCode: 201, contentType: 'application/json', body: '{"total":12.5,"lines":2}' });
  const empty = await call('shop.quote', secrets['shop.quote']!, '{"items": []}');
  t.deepEqual(empty.value, {
    statusCode: 422,
    contentType: 'application/json',
    body: '{"error":"the basket is empty"}',
  });
});

test('payment reminder: waits until the due date, then marks an open invoice; no due date fails the execution', async (t) => {
  const records = recordClient(stack);
  const scope = (key: string, idempotencyKey = '') => ({
    company: tenant.company,
    table: 'invoice',
    key,
    caller: 'erp',
    idempotencyKey,
  });
  await records.insertRecord({ scope: scope('INV-200', 'seed/INV-200'), data: { amount: 40, status: 'open' } });
  const dueAt = new Date(Date.now() + 2000).toISOString();
  const reminded = await call(
    'invoices.remind',
    secrets['invoices.remind']!,
    JSON.stringify({ invoiceId: 'INV-200', dueAt }),
  );
  t.is(reminded.headers.get('x-flowhook-outcome'), 'instant-return');
  await stack.temporal.workflow.getHandle(reminded.executionId!).result();
  t.true(Date.now() >= Date.parse(dueAt), 'it waited for the due date');
  t.like((await records.getRecord({ scope: scope('INV-200') })).record!.data, { status: 'reminded' });

  const undated = await call('invoices.remind', secrets['invoices.remind']!, '{"invoiceId": "INV-201"}');
  const error = await t.throwsAsync(stack.temporal.workflow.getHandle(undated.executionId!).result());
  t.regex(String((error?.cause as Error | undefined)?.message), /invoice INV-201 has no dueAt/);
});

test('order shipment: the step waits for its key, and flowWebhook_Resume delivers the carrier', async (t) => {
  const started = await call('orders.ship', secrets['orders.ship']!, '{"orderId": "SO-4711"}');
  t.is(started.status, 200, started.text);
  const resume = () =>
    fetch(`${stack.facadeUrl}/${INSTANCE}/ODataV4/flowWebhook_Resume?company=${encodeURIComponent(tenant.company)}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: tenant.auth },
      body: JSON.stringify({
        activity: 'orders.ship',
        secret: secrets['orders.ship'],
        key: 'SO-4711',
        payload: { carrier: 'DHL' },
      }),
    });
  // The key is registered when the step starts waiting; until then no execution waits for it (404).
  const resumed = await eventually(resume, {
    until: (response) => response.status !== 404,
    intervalMs: 200,
    what: 'the key registered',
    show: (response) => `${response.status}`,
  });
  t.is(resumed.status, 202);
  await stack.temporal.workflow.getHandle(started.executionId!).result();
  const shipment = (
    await recordClient(stack).getRecord({
      scope: { company: tenant.company, table: 'shipment', key: 'SO-4711', caller: 'test', idempotencyKey: '' },
    })
  ).record!;
  t.like(shipment.data, { status: 'picked-up', carrier: 'DHL' });
  const awaiting = recordClient(stack).getRecord({
    scope: { company: tenant.company, table: 'awaiting-pickup', key: 'SO-4711', caller: 'test', idempotencyKey: '' },
  });
  await t.throwsAsync(awaiting, { message: /does not exist/ }, 'off the awaiting-pickup list once picked up');
});

test('invoice payment: the provider gets the callback URL through the connection, its callback marks the invoice paid', async (t) => {
  const started = await call(
    'invoices.collect',
    secrets['invoices.collect']!,
    '{"invoiceId": "INV-300", "amount": 99.5}',
  );
  t.is(started.status, 200, started.text);
  const created = await psp.waitFor('/v1/payments');
  t.is(created.headers['x-api-key'], 'psp-test-key', 'the connection added its key');
  const { notifyUrl, invoice, amount } = JSON.parse(created.body) as {
    notifyUrl: string;
    invoice: string;
    amount: number;
  };
  t.deepEqual({ invoice, amount }, { invoice: 'INV-300', amount: 99.5 });
  const token = /\/callbacks\/([A-Za-z0-9_-]{43})$/.exec(notifyUrl)?.[1];
  t.truthy(token, notifyUrl);
  const callback = await fetch(`${stack.facadeUrl}/${INSTANCE}/callbacks/${token}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{"id": "pay_77", "status": "succeeded"}',
  });
  t.is(callback.status, 200);
  t.deepEqual(await callback.json(), { received: true });
  await stack.temporal.workflow.getHandle(started.executionId!).result();
  const paid = (
    await recordClient(stack).getRecord({
      scope: { company: tenant.company, table: 'invoice', key: 'INV-300', caller: 'test', idempotencyKey: '' },
    })
  ).record!;
  t.like(paid.data, { status: 'paid', paymentId: 'pay_77' });
});

/** A provider's request to the example's route, signed as that provider signs. */
async function deliver(
  activity: string,
  body: string,
  contentType = 'application/json',
): Promise<{ status: number; text: string; executionId: string | null }> {
  const provider = PROVIDERS.find((candidate) => candidate.activity === activity)!;
  const headers = { 'content-type': contentType, ...(await provider.sign(body, provider.secret)) };
  const response = await fetch(
    `${stack.facadeUrl}/${INSTANCE}/hooks/${encodeURIComponent(tenant.company)}/${activity}`,
    { method: 'POST', headers, body },
  );
  return {
    status: response.status,
    text: await response.text(),
    executionId: response.headers.get('x-flowhook-execution-id'),
  };
}

test('stripe payments (the provider callback tutorial): a signed payment_intent.succeeded marks the invoice paid, answered with the event id', async (t) => {
  const event = {
    id: 'evt_1',
    type: 'payment_intent.succeeded',
    data: { object: { id: 'pi_1', amount_received: 4200, metadata: { invoice: 'INV-400' } } },
  };
  const answer = await deliver('payments.stripe', JSON.stringify(event));
  t.is(answer.status, 200, answer.text);
  t.deepEqual(JSON.parse(answer.text), { received: 'evt_1' });
  const invoice = (
    await recordClient(stack).getRecord({
      scope: { company: tenant.company, table: 'invoice', key: 'INV-400', caller: 'test', idempotencyKey: '' },
    })
  ).record!;
  t.like(invoice.data, { status: 'paid', paidAmount: 42, stripeEvent: 'evt_1' });
});

test("the other provider examples accept their provider's signed request and run to the end", async (t) => {
  const slack = await deliver('chat.slack-events', 'command=%2Fquote&text=hello', 'application/x-www-form-urlencoded');
  t.is(slack.status, 200, slack.text);
  t.deepEqual(JSON.parse(slack.text), { text: 'Got it: hello' });

  const shop = await deliver('shop.orders-create', '{"id": 1001, "name": "#1001", "total_price": "9.90"}');
  t.is(shop.status, 200, shop.text);
  await stack.temporal.workflow.getHandle(shop.executionId!).result();
  const order = (
    await recordClient(stack).getRecord({
      scope: { company: tenant.company, table: 'shop-order', key: '1001', caller: 'test', idempotencyKey: '' },
    })
  ).record!;
  t.like(order.data, { name: '#1001', total: '9.90' });

  const others: [string, string][] = [
    ['ci.github-push', '{"ref": "refs/heads/main", "after": "abc123", "pusher": {"name": "ada"}}'],
    ['billing.invoice-events', '{"type": "invoice.paid", "data": {"invoiceId": "INV-500"}}'],
    ['partner.events', '{"event": "order.created"}'],
  ];
  for (const [activity, body] of others) {
    const answer = await deliver(activity, body);
    t.is(answer.status, 200, `${activity}: ${answer.text}`);
    await t.notThrowsAsync(stack.temporal.workflow.getHandle(answer.executionId!).result(), activity);
  }
});
