// A table of what the engine listed: a caption naming it (for screen readers
// only, unless shown), a header cell per column, the rows as the page makes
// them (each led by its row header).
import type { ReactNode } from 'react';

export interface TableFrame {
  caption: ReactNode;
  /** The header cells; `false` leaves a column out (the Actions of a person who may not change anything). */
  columns: readonly (string | false)[];
  className?: string;
  captionShown?: boolean;
}

export function DataTable({
  caption,
  columns,
  className,
  captionShown = false,
  children,
}: TableFrame & { children: ReactNode }) {
  return (
    <table className={className}>
      <caption className={captionShown ? undefined : 'visually-hidden'}>{caption}</caption>
      <thead>
        <tr>
          {columns.map((column) =>
            column === false ? null : (
              <th key={column} scope="col">
                {column}
              </th>
            ),
          )}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
