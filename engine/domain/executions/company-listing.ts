// One company's executions from a visibility listing, at most `want` of them.
// A company whose name holds a quote or backslash is selected by the prefix
// before it (visibility-query.ts companyClause), which can match other
// companies — every company, when the name starts with a quote — so its own are
// kept by their Company search attribute, and the reading stops after a bound:
// without one, listing such a company read the whole task queue's executions
// in search of `want` of its own. Pure over the rows it is handed.
import type { WorkflowExecutionInfo } from '@temporalio/client';
import { COMPANY_KEY } from '../../infrastructure/temporal/search-attributes.ts';
import { needsExactCompanyCheck } from './visibility-query.ts';

/** A prefix listing reads at most this many rows per row wanted… */
export const SCAN_FACTOR = 10;
/** …and never more than this many in all. */
export const MAX_SCANNED = 5_000;
/** Temporal's largest page. */
const MAX_PAGE = 1_000;

type Row = Pick<WorkflowExecutionInfo, 'typedSearchAttributes'>;

export interface CompanyListing<T extends Row> {
  found: T[];
  /** The bound ended the reading: the company may have more matches than `found`. */
  partial: boolean;
}

/** How many rows a listing of `want` executions of `company` may read. */
export function scanBound(company: string, want: number): number {
  return needsExactCompanyCheck(company) ? Math.min(want * SCAN_FACTOR, MAX_SCANNED) : want;
}

/** The page size to ask Temporal for: the bound, within Temporal's largest page. */
export function pageSizeFor(company: string, want: number): number {
  return Math.min(scanBound(company, want), MAX_PAGE);
}

/** `company` '' is no company filter (the query has none): every row is kept. */
export async function companyExecutions<T extends Row>(
  rows: AsyncIterable<T>,
  company: string,
  want: number,
): Promise<CompanyListing<T>> {
  const exact = company !== '' && needsExactCompanyCheck(company);
  const bound = exact ? scanBound(company, want) : Infinity;
  const found: T[] = [];
  let read = 0;
  for await (const row of rows) {
    read++;
    if (!exact || row.typedSearchAttributes.get(COMPANY_KEY) === company) found.push(row);
    if (found.length >= want) return { found, partial: false };
    if (read >= bound) return { found, partial: true };
  }
  return { found, partial: false };
}
