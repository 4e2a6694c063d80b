// What the admin services reach: the database, through one EntityManager fork per call (what one
// call loads is never another's), and the change feed that tells every engine what changed.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ChangeAnnouncer } from '../../infrastructure/cache/change-feed.ts';

export interface AdminStoreDeps {
  orm: MikroORM;
  changes: ChangeAnnouncer;
}
