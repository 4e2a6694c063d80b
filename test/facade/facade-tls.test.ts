// The facade serves HTTPS itself when given certificate files (the per-flow
// secret travels in the body, so production traffic is HTTPS).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'ava';
import { createClient, createRouterTransport } from '@connectrpc/connect';
import { InvokeOutcome, WebhookService } from '../../proto/gen/flowhook/engine/v1/webhook_service_pb.js';
import { createFacade } from '../../facade/app.ts';
import { readFacadeConfig } from '../../facade/config.ts';
import { createFacadeLogger } from '../../facade/logger.ts';

test('with FLOWHOOK_FACADE_TLS_CERT/KEY the endpoint answers over HTTPS', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'flowhook-tls-'));
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      keyFile,
      '-out',
      certFile,
    ],
    { stdio: 'ignore' },
  );
  const transport = createRouterTransport(({ service }) => {
    service(WebhookService, {
      invoke: (req) => ({
        statusCode: 200,
        contentType: 'text/plain',
        body: 'over tls',
        executionId: `${req.activity}:1`,
        outcome: InvokeOutcome.RESPONDED,
      }),
    });
  });
  const config = readFacadeConfig({
    FLOWHOOK_ENGINE_TOKEN: 'a-token-of-sixteen-plus',
    FLOWHOOK_FACADE_PORT: '0',
    FLOWHOOK_FACADE_HOST: '127.0.0.1',
    FLOWHOOK_FACADE_TLS_CERT: certFile,
    FLOWHOOK_FACADE_TLS_KEY: keyFile,
    FLOWHOOK_LOG_LEVEL: 'error',
  });
  const facade = await createFacade({
    config,
    webhookClient: createClient(WebhookService, transport),
    logger: createFacadeLogger('error'),
  }).listen();
  t.teardown(() => facade.close());

  const body = JSON.stringify({ activity: 'tls.check', secret: 's'.repeat(32), payload: {} });
  const answer = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(
      {
        host: '127.0.0.1',
        port: facade.port,
        method: 'POST',
        path: '/BC/ODataV4/flowWebhook_Invoke?company=Acme',
        ca: readFileSync(certFile),
        headers: {
          'content-type': 'application/json',
          authorization: `Basic ${Buffer.from('u:k').toString('base64')}`,
        },
      },
      (res) => {
        let text = '';
        res
          .setEncoding('utf8')
          .on('data', (chunk: string) => (text += chunk))
          .on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
  t.is(answer.status, 200, answer.text);
  const envelope = JSON.parse(answer.text);
  t.is(envelope['@odata.context'], `https://localhost:${facade.port}/BC/ODataV4/$metadata#Edm.String`);
  t.is(JSON.parse(envelope.value).body, 'over tls');
});
