// `flowhook secret-store rotate`: every stored secret's data key is re-wrapped
// under the current key-encryption key, so afterwards nothing depends on an
// older key and that key can be removed. Connections and hook secrets (a few
// rows) in one transaction; then the delivery log's bodies, which can be
// millions of rows, in batches of their own after it: DELIVERY_BATCH rows a
// transaction, in id order from where the last batch stopped, skipping rows
// another transaction holds (`for update skip locked`). Of a body only its
// envelope's head is read and replaced (rewrapEnvelopeHead): its ciphertext,
// bound to its row (`delivery:<id>`), stays as it is. A key is reported
// retired only once no row names it any more, skipped rows included.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Connection, HookSecret } from '../storage/entities.ts';
import { ENVELOPE_HEAD_MAX, rewrapEnvelopeHead, rewrapSecret } from './envelope-encryption.ts';
import { KeyringError, type SecretKeyring } from './secret-keyring.ts';

/** Delivery bodies re-wrapped per transaction at most. */
export const DELIVERY_BATCH = 1000;

export interface RotationResult {
  currentKeyId: string;
  generated: boolean;
  /** Connection and hook secrets re-wrapped. */
  rewrapped: number;
  /** Stored delivery bodies re-wrapped. */
  deliveriesRewrapped: number;
  retiredKeyIds: string[];
}

export interface RotationOptions {
  /** Delivery bodies per transaction (DELIVERY_BATCH; tests make it small). */
  deliveryBatch?: number;
}

export async function rotateSecretsKey(
  em: EntityManager,
  keyring: SecretKeyring,
  options: RotationOptions = {},
): Promise<RotationResult> {
  keyring.current(); // no key at all: say so before anything changes
  const generated = keyring.fromFile;
  if (generated) keyring.generateKey();
  const current = keyring.current();
  const rewrapped = await em.transactional(async (tx) => {
    const rows = await tx.find(Connection, { keyId: { $ne: current.id } }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    for (const row of rows) {
      row.secretCiphertext = rewrapSecret(keyring, row.secretCiphertext) ?? row.secretCiphertext;
      row.keyId = current.id;
    }
    // Hook secrets: the current one and, during a rotation overlap, the previous one.
    const hookSecrets = await tx.find(
      HookSecret,
      { $or: [{ keyId: { $ne: current.id } }, { previousKeyId: { $ne: current.id } }] },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    let hookRewrapped = 0;
    for (const row of hookSecrets) {
      if (row.keyId !== current.id) {
        row.secretCiphertext = rewrapSecret(keyring, row.secretCiphertext) ?? row.secretCiphertext;
        row.keyId = current.id;
        hookRewrapped++;
      }
      if (row.previousValidUntil && row.previousValidUntil.getTime() <= Date.now()) {
        // An overlap that is over: nothing reads that secret again, so it is dropped rather than kept under the new key.
        row.previousCiphertext = null;
        row.previousKeyId = null;
        row.previousValidUntil = null;
      } else if (row.previousCiphertext && row.previousKeyId !== current.id) {
        row.previousCiphertext = rewrapSecret(keyring, row.previousCiphertext) ?? row.previousCiphertext;
        row.previousKeyId = current.id;
        hookRewrapped++;
      }
    }
    await tx.flush();
    return rows.length + hookRewrapped;
  });
  // Only the ring's older keys: a body under a key the ring lacks cannot be re-wrapped, and keeps no ring key in use.
  const older = keyring.ids().filter((id) => id !== current.id);
  const deliveriesRewrapped = await rewrapDeliveryBodies(em, keyring, older, options.deliveryBatch ?? DELIVERY_BATCH);
  const inUse = await keysInUse(em, older);
  return {
    currentKeyId: current.id,
    generated,
    rewrapped,
    deliveriesRewrapped,
    retiredKeyIds: older.filter((id) => !inUse.has(id)),
  };
}

export interface StoredHead {
  id: string;
  /** The first ENVELOPE_HEAD_MAX bytes of the row's body. */
  head: Uint8Array;
}

export interface HeadUpdate {
  id: string;
  /** The new head, replacing the body's first `replaces` bytes. */
  head: Buffer;
  replaces: number;
}

/** A batch's new heads under the current key; a body that does not parse stops the rotation, naming its row. */
export function rewrapDeliveryHeads(keyring: SecretKeyring, rows: readonly StoredHead[]): HeadUpdate[] {
  return rows.map((row) => {
    let rewrapped: ReturnType<typeof rewrapEnvelopeHead>;
    try {
      // Envelopes are ASCII: latin1 reads one character a byte, so `replaces` counts bytes as well.
      rewrapped = rewrapEnvelopeHead(keyring, Buffer.from(row.head).toString('latin1'));
    } catch (error) {
      throw new KeyringError(`delivery ${row.id}: ${(error as Error).message}`);
    }
    // Already under the current key (its key_id said otherwise): only key_id changes.
    if (!rewrapped) return { id: row.id, head: Buffer.alloc(0), replaces: 0 };
    return { id: row.id, head: Buffer.from(rewrapped.head, 'latin1'), replaces: rewrapped.replaces };
  });
}

/** Delivery bodies wrapped under one of `older`, re-wrapped in batches of `batch` rows; resolves to how many. */
async function rewrapDeliveryBodies(
  em: EntityManager,
  keyring: SecretKeyring,
  older: readonly string[],
  batch: number,
): Promise<number> {
  if (older.length === 0) return 0;
  const current = keyring.current().id;
  const keys = older.map(() => '?').join(', ');
  const select = `
select "id", substring("body" from 1 for ${ENVELOPE_HEAD_MAX}) as "head" from "delivery"
where "id" > ? and "key_id" in (${keys})
order by "id" limit ${batch} for update skip locked`;
  let after = '00000000-0000-0000-0000-000000000000';
  let total = 0;
  for (;;) {
    const rows = await em.transactional(async (tx) => {
      const connection = tx.getConnection();
      const found = await connection.execute<StoredHead[]>(
        select,
        [after, ...older],
        'all',
        tx.getTransactionContext(),
      );
      const updates = rewrapDeliveryHeads(keyring, found);
      if (updates.length > 0) {
        const params: unknown[] = [current];
        const values = updates.map((update) => {
          params.push(update.id, update.head, update.replaces);
          return '(?::uuid, ?::bytea, ?::int)';
        });
        await connection.execute(
          `update "delivery" as d set "body" = overlay(d."body" placing v."head" from 1 for v."replaces"), "key_id" = ?
from (values ${values.join(', ')}) as v("id", "head", "replaces") where d."id" = v."id"`,
          params,
          'run',
          tx.getTransactionContext(),
        );
      }
      return found;
    });
    total += rows.length;
    if (rows.length < batch) return total;
    after = rows[rows.length - 1]!.id;
  }
}

/** Which of `keyIds` a stored row still names: a row skipped above (locked), or written meanwhile by an engine not yet on the new key. */
async function keysInUse(em: EntityManager, keyIds: readonly string[]): Promise<Set<string>> {
  if (keyIds.length === 0) return new Set();
  const keys = keyIds.map(() => '?').join(', ');
  const rows = await em.getConnection().execute<{ key_id: string }[]>(
    `select "key_id" from "connection" where "key_id" in (${keys})
union select "key_id" from "hook_secret" where "key_id" in (${keys})
union select "previous_key_id" from "hook_secret" where "previous_key_id" in (${keys})
union select "key_id" from "delivery" where "key_id" in (${keys})`,
    [...keyIds, ...keyIds, ...keyIds, ...keyIds],
    'all',
  );
  return new Set(rows.map((row) => row.key_id));
}
