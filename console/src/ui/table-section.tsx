// A section of an admin page that lists what the engine has in a table and,
// for a person who may change it, adds to it with a form: the people page's
// callers, a company's hook secrets. The heading and its line as PageSection,
// the list as QueryTable.
import type { ReactNode } from 'react';
import { PageSection } from './page.tsx';
import { QueryTable, type QueryTableProps } from './query-table.tsx';

export interface TableSectionProps<Data, Row> extends Omit<QueryTableProps<Data, Row>, 'what' | 'caption'> {
  id: string;
  title: string;
  intro: ReactNode;
  /** For "Loading the service users…"; by default "the" and the title in lower case. */
  what?: string;
  /** The table's caption; by default the title. */
  caption?: ReactNode;
  /** Before the table: the form that adds a row (for a person who may). */
  form?: ReactNode;
  /** After the table: a dialog about one row, or the form where it follows the list. */
  after?: ReactNode;
}

export function TableSection<Data, Row>({
  id,
  title,
  intro,
  what,
  caption,
  form,
  after,
  ...table
}: TableSectionProps<Data, Row>) {
  return (
    <PageSection id={id} title={title} intro={intro}>
      {form}
      <QueryTable what={what ?? `the ${title.toLowerCase()}`} caption={caption ?? title} {...table} />
      {after}
    </PageSection>
  );
}
