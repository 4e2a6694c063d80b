// The list scaffold of the console's pages: a list read from the engine, in
// each state — loading, refused (the engine's reason), empty (a sentence, or
// nothing; never a table without rows) — and otherwise its table. Pages that
// say more around their table (a count, a pager) use Loaded and DataTable.
import type { ReactNode } from 'react';
import { DataTable, type TableFrame } from './data-table.tsx';
import { Loaded, type Read } from './states.tsx';

export interface QueryTableProps<Data, Row> extends TableFrame {
  read: Read<Data>;
  /** For "Loading the service users…" and "Could not load the service users: …". */
  what: string;
  rowsOf(data: Data): readonly Row[];
  /** Said instead of the table when there are no rows. */
  empty?: ReactNode;
  /** A row (keyed), led by its row header. */
  children(row: Row, index: number): ReactNode;
}

export function QueryTable<Data, Row>({
  read,
  what,
  rowsOf,
  empty = null,
  children,
  ...table
}: QueryTableProps<Data, Row>) {
  return (
    <Loaded read={read} what={what}>
      {(data) => {
        const rows = rowsOf(data);
        return rows.length === 0 ? (
          empty
        ) : (
          <DataTable {...table}>{rows.map((row, index) => children(row, index))}</DataTable>
        );
      }}
    </Loaded>
  );
}
