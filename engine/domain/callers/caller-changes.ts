// Every change to who may call — a service user and its grants, a service account, an
// application — ends alike: written, then announced on the change feed's `users` topic, so every
// engine's caller cache drops what it held and the next call anywhere sees the change.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeAnnouncer } from '../../infrastructure/cache/change-feed.ts';
import { flushOrRefuseDuplicate } from '../../infrastructure/storage/unique-flush.ts';

/** Writes the change and tells every engine; with `duplicate`, a unique key the write would break is refused with its error. */
export async function saveCallerChange(
  em: EntityManager,
  changes: ChangeAnnouncer,
  duplicate?: () => Error,
): Promise<void> {
  if (duplicate) await flushOrRefuseDuplicate(em, duplicate);
  else await em.flush();
  await changes.announce(em, 'users');
}

/** Turns a caller — a service user, a service account, an application — on or off, in every engine at once. */
export async function setCallerEnabled(
  em: EntityManager,
  changes: ChangeAnnouncer,
  caller: { enabled: boolean },
  enabled: boolean,
): Promise<void> {
  caller.enabled = enabled;
  await saveCallerChange(em, changes);
}
