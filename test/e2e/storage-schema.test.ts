// The committed migrations and the entity definitions describe the same
// schema: after migrating a fresh database the ORM finds nothing to change.
import test from 'ava';
import { openOrm } from '../../engine/infrastructure/storage/orm.ts';
import { createTestDatabase } from '../support/stack.ts';

test('migrations match the entities', async (t) => {
  const orm = await openOrm({ databaseUrl: await createTestDatabase() });
  try {
    const diff = await orm.schema.getUpdateSchemaSQL({ wrap: false, safe: false });
    t.is(diff.trim(), '', diff);
  } finally {
    await orm.close(true);
  }
});

test('one published flow per activity and company is enforced by the database itself', async (t) => {
  const orm = await openOrm({ databaseUrl: await createTestDatabase() });
  try {
    const connection = orm.em.getConnection();
    const indexes = (await connection.execute(
      `select indexdef from pg_indexes where tablename = 'published_flow'`,
    )) as { indexdef: string }[];
    t.true(
      indexes.some((row) => /UNIQUE INDEX .* \(company_id, activity\)/.test(row.indexdef)),
      JSON.stringify(indexes),
    );
    const lowercase = (await connection.execute(
      `select pg_get_constraintdef(oid) as def from pg_constraint where conrelid = 'published_flow'::regclass and contype = 'c'`,
    )) as {
      def: string;
    }[];
    t.true(lowercase.some((row) => /lower/.test(row.def)));
  } finally {
    await orm.close(true);
  }
});
