// One company's executions out of a visibility listing (engine/domain/executions/
// company-listing.ts): a name with a quote is selected by a prefix that can
// match every company, so its own rows are picked out and the reading stops
// at a bound — here over a listing that never ends.
import test from 'ava';
import { TypedSearchAttributes } from '@temporalio/common';
import {
  companyExecutions,
  MAX_SCANNED,
  pageSizeFor,
  SCAN_FACTOR,
  scanBound,
} from '../../engine/domain/executions/company-listing.ts';
import { COMPANY_KEY } from '../../engine/infrastructure/temporal/search-attributes.ts';

const row = (company: string, n: number) => ({
  n,
  typedSearchAttributes: new TypedSearchAttributes([{ key: COMPANY_KEY, value: company }]),
});

async function* endless(pattern: (n: number) => string) {
  for (let n = 0; ; n++) yield row(pattern(n), n);
}

test("a quoted name's listing keeps its own rows and stops at its bound, on a listing without end", async (t) => {
  const company = `'Lead" Co`;
  const { found, partial } = await companyExecutions(
    endless(() => 'Other Co'),
    company,
    3,
  );
  t.deepEqual(found, []);
  t.true(partial);
  const mixed = await companyExecutions(
    endless((n) => (n % 4 === 0 ? company : `${company} `)),
    company,
    3,
  );
  t.deepEqual(
    mixed.found.map((item) => item.n),
    [0, 4, 8],
  );
  t.false(mixed.partial, 'it found what it wanted within the bound');
});

test('the bound grows with what is wanted, up to a ceiling; a plain name reads what it wants', async (t) => {
  t.is(scanBound(`Quote's`, 5), 5 * SCAN_FACTOR);
  t.is(scanBound(`Quote's`, 1_000), MAX_SCANNED);
  t.is(scanBound('Plain', 5), 5);
  t.is(pageSizeFor(`Quote's`, 1_000), 1_000);
  const plain = await companyExecutions(
    endless(() => 'Plain'),
    'Plain',
    2,
  );
  t.deepEqual(
    plain.found.map((item) => item.n),
    [0, 1],
  );
  const all = await companyExecutions(
    endless((n) => `Company ${n}`),
    '',
    2,
  );
  t.is(all.found.length, 2, 'no company: every row counts');
});
