import { p } from '@mikro-orm/core';

/**
 * The columns of a row keyed by a random uuid, the table's own after the key. The code that
 * creates the row draws the uuid (randomUUID()); the database never makes one up.
 */
export function uuidRow<const Columns extends object>(columns: Columns) {
  return { id: p.uuid().primary(), ...columns };
}
