// `flowhook start` decides the codec server's port and allowed origins before
// the dev server starts, since the Web UI is told the endpoint at launch.
import { createServer } from 'node:net';
import test from 'ava';
import { findFreePort } from '../../bin/embedded/free-port.ts';
import { planLocalCodec as plan } from '../../bin/start/local-codec.ts';
import { readSettings } from '../../common/configuration/read-settings.ts';

const planLocalCodec = (env: Record<string, string>, uiPort: number) => plan(readSettings(env, 'start'), uiPort);

test('default: the Web UI port + 1 on 127.0.0.1, allowing the UI under both loopback names', async (t) => {
  const uiPort = (await findFreePort()) - 1;
  t.deepEqual(await planLocalCodec({}, uiPort), {
    endpoint: `http://127.0.0.1:${uiPort + 1}`,
    env: {
      FLOWHOOK_CODEC_PORT: String(uiPort + 1),
      FLOWHOOK_CODEC_ALLOWED_ORIGINS: `http://127.0.0.1:${uiPort},http://localhost:${uiPort}`,
    },
  });
});

test('FLOWHOOK_CODEC_PORT picks the port, off runs none; the engine certificate makes it https', async (t) => {
  const port = await findFreePort();
  t.is(
    (await planLocalCodec(
      {
        FLOWHOOK_CODEC_PORT: String(port),
        FLOWHOOK_ENGINE_TLS_CERT: '/etc/cert.pem',
        FLOWHOOK_CODEC_ALLOWED_ORIGINS: 'http://ui.test',
      },
      8233,
    ))!.endpoint,
    `https://127.0.0.1:${port}`,
  );
  t.is(await planLocalCodec({ FLOWHOOK_CODEC_PORT: 'off' }, 8233), undefined);
  await t.throwsAsync(planLocalCodec({ FLOWHOOK_CODEC_PORT: '0' }, 8233), {
    message: /FLOWHOOK_CODEC_PORT must be a fixed port for flowhook start \(1\.\.65535\) or off/,
  });
});

test('a port in use stops start before anything runs, naming the variable', async (t) => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  try {
    await t.throwsAsync(planLocalCodec({ FLOWHOOK_CODEC_PORT: String(port) }, 8233), {
      message:
        /codec server \(FLOWHOOK_CODEC_PORT=\d+; FLOWHOOK_CODEC_PORT=off runs none\): port \d+ on 127\.0\.0\.1 is already in use/,
    });
  } finally {
    server.close();
  }
});
