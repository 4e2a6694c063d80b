import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Writes what the unit of work holds. Where that would break a unique key (a name or an activity
 * taken, also by a write that raced this one), the error `duplicate` makes is thrown instead of
 * the driver's, saying what is taken; any other error is thrown as it is.
 */
export async function flushOrRefuseDuplicate(em: EntityManager, duplicate: () => Error): Promise<void> {
  try {
    await em.flush();
  } catch (error) {
    if (error instanceof UniqueConstraintViolationException) throw duplicate();
    throw error;
  }
}
