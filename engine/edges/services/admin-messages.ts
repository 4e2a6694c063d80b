// Pieces of the admin services' answers that more than one service builds alike.
import { timestampFromDate, type Timestamp } from '@bufbuild/protobuf/wkt';
import type { EntityManager } from '@mikro-orm/postgresql';

/** A time an answer may leave out (an expiry, a rotation, an overlap): unset in the message when there is none. */
export function optionalTimestamp(date: Date | null | undefined): Timestamp | undefined {
  return date ? timestampFromDate(date) : undefined;
}

/** A company's rows (its flows, its connections) as messages, each built with the EntityManager that listed them. */
export async function companyMessages<Row, Message>(
  em: EntityManager,
  company: string,
  list: (em: EntityManager, company: string) => Promise<Row[]>,
  message: (em: EntityManager, row: Row) => Promise<Message>,
): Promise<Message[]> {
  const rows = await list(em, company);
  return Promise.all(rows.map((row) => message(em, row)));
}
