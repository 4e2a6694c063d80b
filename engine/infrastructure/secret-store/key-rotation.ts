// `flowhook secret-store rotate`: every stored secret's data key (connections,
// hook secrets) is re-wrapped under the current key-encryption key, in one
// transaction, so afterwards no secret depends on an older key and that key
// can be removed.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Connection, HookSecret } from '../storage/entities.ts';
import { rewrapSecret } from './envelope-encryption.ts';
import type { SecretKeyring } from './secret-keyring.ts';

export interface RotationResult {
  currentKeyId: string;
  generated: boolean;
  rewrapped: number;
  retiredKeyIds: string[];
}

export async function rotateSecretsKey(em: EntityManager, keyring: SecretKeyring): Promise<RotationResult> {
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
  return {
    currentKeyId: current.id,
    generated,
    rewrapped,
    retiredKeyIds: keyring.ids().filter((id) => id !== current.id),
  };
}
