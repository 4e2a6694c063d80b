// The delivery log's flood bound (engine/domain/deliveries/flood-bound.ts): per
// sender and in all, per minute, refused deliveries beyond the bound go to one
// summary per sender, company, outcome and reason; memory stays bounded.
import test from 'ava';
import { FloodBound } from '../../engine/domain/deliveries/flood-bound.ts';

let ids = 0;
const bound = (limits: ConstructorParameters<typeof FloodBound>[0]) => new FloodBound(limits, () => `s${++ids}`);
const refused = (sender: string, at = 0, reason = 'secret_mismatch') => ({
  at,
  sender,
  company: 'Acme',
  outcome: 'refused',
  reason,
});

test('one sender: N stored a minute, the rest on one summary; a new minute starts again', (t) => {
  const flood = bound({ perSender: 3, perMinute: 100 });
  const results = Array.from({ length: 10 }, () => flood.admit(refused('192.0.2.1')));
  t.is(results.filter((r) => r.store).length, 3);
  const summaries = new Set(results.flatMap((r) => (r.store ? [] : [r.summaryId])));
  t.is(summaries.size, 1);
  t.true(flood.admit(refused('192.0.2.1', 60_000)).store);
});

test('another reason is another summary; accepted deliveries are always stored', (t) => {
  const flood = bound({ perSender: 1, perMinute: 100 });
  flood.admit(refused('a'));
  const first = flood.admit(refused('a'));
  const other = flood.admit(refused('a', 0, 'bad_key'));
  t.false(first.store);
  t.false(other.store);
  if (!first.store && !other.store) t.not(first.summaryId, other.summaryId);
  for (let i = 0; i < 10; i++) t.true(flood.admit({ ...refused('a'), outcome: 'accepted' }).store);
});

test('the global cap holds whatever the number of senders', (t) => {
  const flood = bound({ perSender: 30, perMinute: 50 });
  let stored = 0;
  for (let i = 0; i < 5000; i++) if (flood.admit(refused(`10.0.${i % 200}.1`)).store) stored++;
  t.is(stored, 50);
});

test('senders beyond the tracked ones share summaries; summaries fold when too many', (t) => {
  const flood = bound({ perSender: 1, perMinute: 1_000_000, maxSenders: 10, maxSummaries: 5 });
  const summaries = new Set<string>();
  let stored = 0;
  for (let i = 0; i < 1000; i++) {
    const r = flood.admit(refused(`s${i % 100}`));
    if (r.store) stored++;
    else summaries.add(r.summaryId);
  }
  t.is(stored, 10);
  // 5 summaries, then one per outcome and reason.
  t.true(summaries.size <= 6, String(summaries.size));
  t.true(flood.trackedMinutes <= 2);
  for (let minute = 0; minute < 100; minute++) flood.admit(refused('x', minute * 60_000));
  t.true(flood.trackedMinutes <= 2);
});
