// findFreePort never hands the same port out twice in one process: two servers
// given one port would leave a readiness probe talking to the wrong one.
import test from 'ava';
import { assertPortFree, findFreePort } from '../../bin/embedded/free-port.ts';

test('ports handed out one after another, and at once, are all different and free', async (t) => {
  const sequential: number[] = [];
  for (let i = 0; i < 100; i++) sequential.push(await findFreePort());
  const concurrent = await Promise.all(Array.from({ length: 50 }, () => findFreePort()));
  const all = [...sequential, ...concurrent];
  t.is(new Set(all).size, all.length);
  await Promise.all(concurrent.slice(0, 5).map((port) => assertPortFree('127.0.0.1', port, 'test')));
});
