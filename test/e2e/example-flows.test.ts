// The shipped example flows (examples/flows/), published as they are (only
// company and, for the bridge, the SOAP service URL substituted) and called
// end to end.
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { toJson } from '@bufbuild/protobuf';
import { FlowSchema, type FlowJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { readFlowFile } from '../../bin/cli/flow-file.ts';
import { recordClient } from '../support/record-client.ts';
import { startSoapPriceServer, type SoapPriceServer } from '../support/soap-price-server.ts';
import { startStack, type TestStack } from '../support/stack.ts';
import { callWebhook, createTenant, deployFlow, type Tenant } from '../support/webhook-helpers.ts';

let stack: TestStack;
let tenant: Tenant;
let soap: SoapPriceServer;
const secrets: Record<string, string> = {};

async function loadExample(file: string, patch: (flow: FlowJson) => void = () => undefined): Promise<FlowJson> {
  const flow = toJson(FlowSchema, await readFlowFile(fileURLToPath(new URL(`../../examples/flows/${file}`, import.meta.url)))) as FlowJson;
  flow.company = tenant.company;
  patch(flow);
  return flow;
}

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack);
  soap = await startSoapPriceServer();
  secrets.payment = (await deployFlow(stack, await loadExample('payment-callback.flow.yaml'))).secret;
  secrets.order = (await deployFlow(stack, await loadExample('order-import.flow.yaml'))).secret;
  secrets.soap = (await deployFlow(stack, await loadExample('soap-bridge.flow.yaml', (flow) => {
    flow.steps![0]!.httpRequest!.url = `${soap.url}/soap/prices`;
  }))).secret;
});
test.after.always(async () => {
  await stack?.close();
  await soap?.close();
});

const call = (activity: string, secret: string, payloadText: string) => callWebhook(stack, { company: tenant.company, activity, secret, auth: tenant.auth, payloadText });

test('payment callback: the provider gets 200 at once and the invoice is marked paid or failed', async (t) => {
  const records = recordClient(stack);
  const scope = (key: string, idempotencyKey = `seed/${key}`) => ({ company: tenant.company, table: 'invoice', key, caller: 'erp', idempotencyKey });
  await records.insertRecord({ scope: scope('INV-100'), data: { amount: 99.5, status: 'open' } });
  await records.insertRecord({ scope: scope('INV-101'), data: { amount: 10, status: 'open' } });

  const paid = await call('payments.provider.callback', secrets.payment!, '{"invoiceId": "INV-100", "status": "succeeded", "amount": 99.5, "paymentId": "pay_1"}');
  t.is(paid.status, 200);
  t.is(paid.headers.get('x-flowhook-outcome'), 'instant-return');
  t.deepEqual(paid.value, { statusCode: 200, contentType: 'application/json', body: '' });
  await stack.temporal.workflow.getHandle(paid.executionId!).result();
  const invoice = (await records.getRecord({ scope: scope('INV-100', '') })).record!;
  t.like(invoice.data, { status: 'paid', paidAmount: 99.5, paymentId: 'pay_1', amount: 99.5 });
  t.is(invoice.version, 2n);

  const failed = await call('payments.provider.callback', secrets.payment!, '{"invoiceId": "INV-101", "status": "failed", "paymentId": "pay_2", "reason": "card declined"}');
  await stack.temporal.workflow.getHandle(failed.executionId!).result();
  t.like((await records.getRecord({ scope: scope('INV-101', '') })).record!.data, { status: 'payment-failed', failureReason: 'card declined' });

  const unknown = await call('payments.provider.callback', secrets.payment!, '{"invoiceId": "INV-404", "status": "succeeded"}');
  t.is(unknown.status, 200, 'Instant return: the caller is answered before the flow runs');
  const error = await t.throwsAsync(stack.temporal.workflow.getHandle(unknown.executionId!).result());
  t.regex(String((error?.cause as Error | undefined)?.message), /Find the invoice" failed: record get: record "INV-404" of table "invoice" does not exist/);
});

test('order import: 201 with the new order number, the order stored as a record', async (t) => {
  const answer = await call('partners.portal.order', secrets.order!, '{"orderRef": "PO-1", "customer": "C-7", "lines": [{"sku": "A", "qty": 2}, {"sku": "B", "qty": 1}]}');
  t.is(answer.status, 200, answer.text);
  t.is(answer.value!.statusCode, 201);
  const body = JSON.parse(answer.value!.body);
  t.regex(body.orderNumber, /^SO-[0-9A-F]{10}$/);
  t.is(body.lines, 2);
  const order = (await recordClient(stack).getRecord({ scope: { company: tenant.company, table: 'order', key: 'PO-1', caller: 'test', idempotencyKey: '' } })).record!;
  t.like(order.data, { orderNumber: body.orderNumber, customer: 'C-7', status: 'imported' });

  const again = await call('partners.portal.order', secrets.order!, '{"orderRef": "PO-1", "customer": "C-7", "lines": [{"sku": "A", "qty": 2}]}');
  t.is(again.value!.statusCode, 422);
  t.deepEqual(JSON.parse(again.value!.body), { error: `order PO-1 was already imported as ${body.orderNumber}` });
});

test('order import: 422 inside value with the reason for an invalid order', async (t) => {
  const cases: [string, string][] = [
    ['{"customer": "C-7", "lines": [{"sku": "A", "qty": 1}]}', 'orderRef is required'],
    ['{"orderRef": "PO-2", "lines": [{"sku": "A", "qty": 1}]}', 'customer is required'],
    ['{"orderRef": "PO-2", "customer": "C-7", "lines": []}', 'an order needs at least one line'],
    ['{"orderRef": "PO-2", "customer": "C-7", "lines": [{"sku": "A", "qty": 1.5}]}', 'every line needs a sku and a positive whole qty'],
    ['{"orderRef": "PO-2", "customer": "C-7", "lines": [{"sku": "A", "qty": "2"}]}', 'every line needs a sku and a positive whole qty'],
  ];
  for (const [payload, reason] of cases) {
    const answer = await call('partners.portal.order', secrets.order!, payload);
    t.is(answer.status, 200, `${payload}: ${answer.text}`);
    t.deepEqual(answer.value, { statusCode: 422, contentType: 'application/json', body: JSON.stringify({ error: reason }) }, payload);
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
  t.deepEqual(JSON.parse(fault.value!.body), { error: 'the price service failed', fault: 'unknown sku <x & "y">', status: 500 });
});
