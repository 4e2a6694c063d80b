// Scenario E, the ceiling: a minimal Koa endpoint that parses the same JSON
// body with koa-bodyparser and answers a small JSON document. Run as its own
// process; prints its port on stdout.
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';

const app = new Koa();
app.use(bodyParser({ enableTypes: ['json'], jsonLimit: '1mb' }));
app.use((ctx) => {
  const body = ctx.request.body as { activity?: unknown };
  ctx.body = {
    value: JSON.stringify({ statusCode: 200, contentType: 'application/json', body: String(body.activity ?? '') }),
  };
});
const server = app.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
