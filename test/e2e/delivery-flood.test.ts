// The delivery log under a flood: 20,000 unauthenticated calls, fast, over
// keep-alive connections from 50 loopback addresses (127.0.0.2 … 127.0.0.51:
// 50 senders to the facade), are refused — and the log stores a bounded
// number of rows, as the settings say (FLOWHOOK_DELIVERY_REFUSED_PER_SENDER_PER_MINUTE,
// FLOWHOOK_DELIVERY_REFUSED_PER_MINUTE), while its summary rows count every
// call that was not stored one by one: the counts add up to what was sent.
import { Agent, request } from 'node:http';
import test from 'ava';
import { defaultOf } from '../../common/configuration/configuration-table.ts';
import { DEFAULT_MAX_SUMMARIES } from '../../engine/domain/deliveries/flood-bound.ts';
import { eventually } from '../support/eventually.ts';
import { INSTANCE, startStack, type TestStack } from '../support/stack.ts';

const CALLS = 20_000;
const SENDERS = 50;
const COMPANY = 'Flood Target';
const PER_SENDER = defaultOf('FLOWHOOK_DELIVERY_REFUSED_PER_SENDER_PER_MINUTE');
const PER_MINUTE = defaultOf('FLOWHOOK_DELIVERY_REFUSED_PER_MINUTE');

let stack: TestStack;

test.before(async () => {
  // Every refusal is a warn line: 20,000 of them would drown the test's output.
  stack = await startStack({ withoutWorker: true, env: { FLOWHOOK_LOG_LEVEL: 'error' } });
});
test.after.always(async () => {
  await stack?.close();
});

/** One sender: its own loopback address and keep-alive connection, `count` calls one after the other. */
async function sender(index: number, count: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1, localAddress: `127.0.0.${index + 2}` });
  const url = new URL(
    `${stack.facadeUrl}/${INSTANCE}/ODataV4/flowWebhook_Invoke?company=${encodeURIComponent(COMPANY)}`,
  );
  const body = '{"activity":"anything","secret":"guess","payload":{}}';
  const statuses: number[] = [];
  try {
    for (let i = 0; i < count; i++) {
      statuses.push(
        await new Promise<number>((resolve, reject) => {
          const call = request(
            url,
            { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': body.length } },
            (response) => {
              response.resume();
              response.once('end', () => resolve(response.statusCode ?? 0));
            },
          );
          call.once('error', reject);
          call.end(body);
        }),
      );
    }
  } finally {
    agent.destroy();
  }
  return statuses;
}

interface Minute {
  minute: string;
  rows: number;
  single: number;
  counted: number;
  maxFromOneSender: number;
}

test('20,000 refused calls store a bounded number of rows, and the counts add up to what was sent', async (t) => {
  const statuses = (
    await Promise.all(Array.from({ length: SENDERS }, (_, index) => sender(index, CALLS / SENDERS)))
  ).flat();
  t.is(statuses.length, CALLS);
  t.true(
    statuses.every((status) => status === 401),
    'every call refused',
  );
  const connection = stack.engine.orm.em.getConnection();
  const total = async () =>
    Number(
      (
        (await connection.execute(`select coalesce(sum(count), 0) as n from delivery where company = ?`, [
          COMPANY,
        ])) as {
          n: string;
        }[]
      )[0]!.n,
    );
  const counted = await eventually(total, {
    until: (n) => n >= CALLS,
    timeoutMs: 60_000,
    intervalMs: 500,
    what: `${CALLS} calls counted in the delivery log`,
  });
  t.is(counted, CALLS, 'every call stored or counted, none twice');

  const minutes = (await connection.execute(
    `select to_char(date_trunc('minute', received_at), 'HH24:MI') as minute,
            count(*)::int as rows,
            count(*) filter (where count = 1)::int as single,
            sum(count)::int as counted,
            coalesce(max(per_sender), 0)::int as "maxFromOneSender"
       from delivery d
       left join (select sender as s, date_trunc('minute', received_at) as m, count(*) as per_sender
                    from delivery where company = ? and count = 1 group by 1, 2) p
              on p.s = d.sender and p.m = date_trunc('minute', d.received_at)
      where company = ? group by 1 order by 1`,
    [COMPANY, COMPANY],
  )) as Minute[];
  const rows = minutes.reduce((sum, m) => sum + m.rows, 0);
  t.log(
    `${CALLS} calls from ${SENDERS} senders over ${minutes.length} minute(s): ${rows} rows, ` +
      minutes.map((m) => `${m.minute} ${m.single} stored + ${m.rows - m.single} summaries = ${m.counted}`).join('; '),
  );
  // The facade's minute and the engine's may differ by the report's wait: a minute's bound holds per engine minute.
  for (const m of minutes) {
    t.true(m.single <= PER_MINUTE, `${m.minute}: ${m.single} stored one by one, at most ${PER_MINUTE}`);
    t.true(m.maxFromOneSender <= PER_SENDER, `${m.minute}: at most ${PER_SENDER} from one sender`);
    // One summary per sender, company, outcome and reason at most (and never more than the cap).
    t.true(m.rows - m.single <= Math.min(SENDERS, DEFAULT_MAX_SUMMARIES + 1));
  }
  t.true(rows <= minutes.length * (PER_MINUTE + SENDERS), `${rows} rows in all`);
  t.true(rows < CALLS / 10);
});
