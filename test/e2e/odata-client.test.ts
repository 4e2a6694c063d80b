// An OData client from npm (@odata/client) calls the endpoint the way a client
// generated from our `$metadata` would: it reads the action import's declared
// parameter types from the running facade's CSDL, passes each argument with
// its declared type, and gets the flow's answer. With the old declaration
// (payload: Edm.String) such a client sends the payload as a JSON string,
// which the endpoint refuses — the second test shows that this is what the fix
// is about. The late-answer function import is called the same way.
import test from 'ava';
import { OData, type FetchProxy } from '@odata/client';
import { startStack, INSTANCE, type TestStack } from '../support/stack.ts';
import { callWebhook, createTenant, deployFlow, flow, type Tenant } from '../support/webhook-helpers.ts';
import {
  actionImportSignature,
  checkCsdl,
  functionImportSignature,
  type OperationSignature,
} from '../support/csdl-check.ts';

const ACTION = 'flowWebhook_Invoke';
const ACTIVITY = 'odata.client.greeting';

let stack: TestStack;
let tenant: Tenant;
let secret: string;

test.before(async () => {
  stack = await startStack();
  tenant = await createTenant(stack);
  ({ secret } = await deployFlow(
    stack,
    flow(
      tenant.company,
      'odata-client-greeting',
      { activity: ACTIVITY, responseMode: 'WAIT_FOR_RESPONSE_STEP', syncTimeoutSeconds: 10 },
      [
        {
          respond: {
            description: 'Greet the customer',
            statusCode: 201,
            contentType: 'application/json',
            body: '${ {"greeting": "Hello, " & Trigger.Payload.customer.name & "!", "lines": $count(Trigger.Payload.lines)} }',
          },
        },
      ],
    ),
  ));
});
test.after.always(async () => {
  await stack?.close();
});

const metadataUrl = () => `${stack.facadeUrl}/${INSTANCE}/ODataV4/$metadata`;

/** What the client library saw on the wire, so a test can tell a 400 from a 200 (the library returns only the body). */
interface Exchange {
  status: number;
  odataVersion: string | null;
}

function recordingClient(exchanges: Exchange[]) {
  const fetchProxy: FetchProxy = async (url, init) => {
    const response = await fetch(url, init as RequestInit);
    const text = await response.text();
    exchanges.push({ status: response.status, odataVersion: response.headers.get('odata-version') });
    const isJson = response.headers.get('content-type')?.startsWith('application/json') ?? false;
    return { content: isJson ? JSON.parse(text) : text, response: response as never };
  };
  // Built from the metadata URL, as a generated client is: the service root is what precedes $metadata.
  return OData.New4({
    serviceEndpoint: metadataUrl(),
    credential: { username: tenant.userName, password: tenant.accessKey },
    fetchProxy,
  });
}

/**
 * The typed proxy a generator makes of an action import: every declared parameter is passed, with a
 * value of its declared type (Edm.String: a string; Edm.Untyped: any JSON value), never null unless nullable.
 */
function declaredArguments(signature: OperationSignature, values: Record<string, unknown>): Record<string, unknown> {
  const args: Record<string, unknown> = {};
  for (const { name, type, nullable } of signature.parameters) {
    const value = values[name];
    if (value === undefined || (value === null && !nullable)) throw new TypeError(`parameter ${name} is required`);
    if (type === 'Edm.String' && typeof value !== 'string')
      throw new TypeError(`parameter ${name} is declared ${type}, got ${typeof value}`);
    if (type !== 'Edm.String' && type !== 'Edm.Untyped')
      throw new TypeError(`parameter ${name}: no mapping for ${type}`);
    args[name] = value;
  }
  return args;
}

async function readSignature(t: {
  is: (a: unknown, b: unknown) => void;
  deepEqual: (a: unknown, b: unknown) => void;
}): Promise<OperationSignature> {
  const response = await fetch(metadataUrl());
  const xml = await response.text();
  t.is(response.status, 200);
  t.is(response.headers.get('odata-version'), '4.01');
  t.deepEqual(checkCsdl(xml), []);
  return actionImportSignature(xml, ACTION);
}

test('a client generated from $metadata calls flowWebhook_Invoke with the declared types and gets the flow answer', async (t) => {
  const signature = await readSignature(t);
  t.deepEqual(
    signature.parameters.map(({ name, type }) => `${name}: ${type}`),
    ['activity: Edm.String', 'secret: Edm.String', 'payload: Edm.Untyped'],
  );
  t.is(signature.returnType, 'Edm.String');

  const exchanges: Exchange[] = [];
  const client = recordingClient(exchanges);
  const payload = { customer: { name: 'Ada' }, lines: [{ sku: 'X' }, { sku: 'Y' }] };
  const answer = await client.actionImport(
    ACTION,
    declaredArguments(signature, { activity: ACTIVITY, secret, payload }),
    OData.newParam().custom('company', tenant.company),
  );

  t.deepEqual(exchanges, [{ status: 200, odataVersion: '4.0' }]);
  const envelope = answer as unknown as { '@odata.context': string; value: unknown };
  t.true(envelope['@odata.context'].endsWith('/$metadata#Edm.String'));
  // The declared return type is Edm.String: the value is a string, holding the flow's answer as JSON.
  t.is(typeof envelope.value, 'string');
  const value = JSON.parse(envelope.value as string) as { statusCode: number; contentType: string; body: string };
  t.is(value.statusCode, 201);
  t.is(value.contentType, 'application/json');
  t.deepEqual(JSON.parse(value.body), { greeting: 'Hello, Ada!', lines: 2 });
});

test('a client generated from the old declaration (payload: Edm.String) sends a JSON string, which the endpoint refuses', async (t) => {
  const signature = await readSignature(t);
  const old: OperationSignature = {
    ...signature,
    parameters: signature.parameters.map((parameter) => ({ ...parameter, type: 'Edm.String' })),
  };
  const exchanges: Exchange[] = [];
  const client = recordingClient(exchanges);
  const payload = JSON.stringify({ customer: { name: 'Ada' }, lines: [] });
  const answer = await client.actionImport(
    ACTION,
    declaredArguments(old, { activity: ACTIVITY, secret, payload }),
    OData.newParam().custom('company', tenant.company),
  );
  t.is(exchanges[0]?.status, 400);
  t.deepEqual(answer, { error: { code: 'BadRequest', message: 'payload must be a JSON object' } });
});

test('the same client calls the function import flowWebhook_Answer with the execution id and gets the same envelope', async (t) => {
  const metadata = await (await fetch(metadataUrl())).text();
  const signature = functionImportSignature(metadata, 'flowWebhook_Answer');
  t.deepEqual(
    signature.parameters.map(({ name, type }) => `${name}: ${type}`),
    ['executionId: Edm.String'],
  );
  const call = await callWebhook(stack, {
    company: tenant.company,
    activity: ACTIVITY,
    secret,
    auth: tenant.auth,
    payloadText: '{"customer": {"name": "Grace"}, "lines": []}',
  });
  t.is(call.status, 200);

  const exchanges: Exchange[] = [];
  const answer = await recordingClient(exchanges).functionImport(
    'flowWebhook_Answer',
    declaredArguments(signature, { executionId: call.executionId }),
    OData.newParam().custom('company', tenant.company),
  );
  t.deepEqual(exchanges, [{ status: 200, odataVersion: '4.0' }]);
  const envelope = answer as unknown as { '@odata.context': string; value: string };
  t.true(envelope['@odata.context'].endsWith('/$metadata#Edm.String'));
  t.deepEqual(JSON.parse(envelope.value), call.value);
});
