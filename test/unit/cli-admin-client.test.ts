// The admin client against a real HTTP/2 cleartext server on port 0: the
// admin token travels as a bearer token, and an absent engine is reported as
// such instead of as a socket error.
import test from 'ava';
import { createServer, type AddressInfo } from 'node:net';
import { createServer as createHttp2Server } from 'node:http2';
import { Code, ConnectError } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { FlowAdminService } from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { createAdminClient } from '../../bin/cli/admin-client.ts';

test('every call carries the admin token as a bearer token', async (t) => {
  const seen: (string | null)[] = [];
  const handler = connectNodeAdapter({
    routes: (router) =>
      router.service(FlowAdminService, {
        listCompanies(_request, context) {
          seen.push(context.requestHeader.get('authorization'));
          return { companies: [{ name: 'Default' }] };
        },
      }),
  });
  const server = createHttp2Server(handler).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  t.teardown(() => void server.close());
  const { port } = server.address() as AddressInfo;
  const client = createAdminClient({ engineUrl: `http://127.0.0.1:${port}`, adminToken: 'the-admin-token-123' });
  const first = await client.listCompanies({});
  await client.listCompanies({});
  t.is(first.companies[0]?.name, 'Default');
  t.deepEqual(seen, ['Bearer the-admin-token-123', 'Bearer the-admin-token-123']);
});

test('an engine that is not running gets a message that says so', async (t) => {
  // A port that was free a moment ago: nothing listens there.
  const probe = createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => probe.once('listening', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));

  const url = `http://127.0.0.1:${port}`;
  const error = await t.throwsAsync(
    createAdminClient({ engineUrl: url, adminToken: 'x'.repeat(20) }).listCompanies({}),
  );
  t.true(error instanceof ConnectError);
  t.is((error as ConnectError).code, Code.Unavailable);
  t.is(
    (error as ConnectError).rawMessage,
    `cannot reach the engine at ${url} — is \`flowhook start\` (or \`flowhook engine\`) running?`,
  );
});
