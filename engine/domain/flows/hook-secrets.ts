// Hook secrets: the signing secrets of provider routes, per company and
// activity, stored envelope-encrypted (engine/infrastructure/secret-store/) like connection
// secrets. Setting one over an existing secret may keep the old one valid for
// an overlap, so the provider can switch without a window of refused calls.
// Every write tells all engines (change feed) so their lookups
// (engine/domain/direct/hook-secret-lookup.ts) drop what they cached.
//
// Nothing here returns, logs or quotes a secret, except the generated one
// that setHookSecret hands back exactly once.
import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { exceedsNameLimit, nameLimitRule } from '../../../common/name-limits.ts';
import { shellArg } from '../../../common/shell-words.ts';
import { directSchemeOf, type DirectScheme } from '../../../flow/index.ts';
import type { ChangeAnnouncer } from '../../infrastructure/cache/change-feed.ts';
import { hookSecretContext } from '../direct/hook-secret-lookup.ts';
import { InvalidArgumentError, NotFoundError } from '../../errors.ts';
import { encryptSecret } from '../../infrastructure/secret-store/envelope-encryption.ts';
import type { SecretKeyring } from '../../infrastructure/secret-store/secret-keyring.ts';
import { HookSecret, PublishedFlow, type Company } from '../../infrastructure/storage/entities.ts';
import { requireCompany } from '../companies/companies.ts';
import {
  generateHookSecret,
  generateProblem,
  hookSecretProblems,
  MAX_HOOK_SECRET_OVERLAP_SECONDS,
} from './hook-secrets-validation.ts';
import { hasControlCharacter } from '../../../common/control-characters.ts';

export interface HookSecretChange {
  company: string;
  activity: string;
  /** The secret as the provider shows it; empty with generate. */
  secret: string;
  generate: boolean;
  overlapSeconds: number;
}

export interface HookSecretSetResult {
  /** Only when generated: shown once, never stored in the clear. */
  generatedSecret?: string;
  previousValidUntil?: Date;
}

export interface HookSecretSummary {
  company: string;
  activity: string;
  updatedAt: Date;
  /** Only while the replaced secret still verifies. */
  previousValidUntil?: Date;
  routePublished: boolean;
}

export async function setHookSecret(
  em: EntityManager,
  keyring: SecretKeyring,
  changes: ChangeAnnouncer,
  change: HookSecretChange,
): Promise<HookSecretSetResult> {
  const activity = normaliseActivity(change.activity);
  const overlapSeconds = change.overlapSeconds;
  if (!Number.isInteger(overlapSeconds) || overlapSeconds < 0 || overlapSeconds > MAX_HOOK_SECRET_OVERLAP_SECONDS) {
    throw new InvalidArgumentError(
      `overlap: 0 to ${MAX_HOOK_SECRET_OVERLAP_SECONDS} seconds (7 days), got ${overlapSeconds}`,
    );
  }
  if (change.generate && change.secret !== '')
    throw new InvalidArgumentError('give a secret or ask for a generated one, not both');
  const company = await requireCompany(em, change.company);
  const scheme = await publishedScheme(em, company, activity);
  let secret = change.secret;
  if (change.generate) {
    const problem = generateProblem(scheme);
    if (problem) throw new InvalidArgumentError(problem);
    keyring.current(); // no key: say so before a secret is shown that was never stored
    secret = generateHookSecret();
  } else {
    const problems = hookSecretProblems(secret, scheme);
    if (problems.length > 0)
      throw new InvalidArgumentError(`hook secret for "${activity}" is not valid:\n- ${problems.join('\n- ')}`);
  }

  const now = new Date();
  const previousValidUntil = await em.transactional(async (tx) => {
    const existing = await tx.findOne(
      HookSecret,
      { company: company.id, activity },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    const row =
      existing ??
      tx.create(HookSecret, {
        id: randomUUID(),
        company,
        activity,
        secretCiphertext: '',
        keyId: '',
        createdAt: now,
        updatedAt: now,
      });
    // The replaced secret keeps its own envelope (same row, same binding): it is never decrypted here.
    const keep = existing !== null && overlapSeconds > 0;
    row.previousCiphertext = keep ? existing.secretCiphertext : null;
    row.previousKeyId = keep ? existing.keyId : null;
    row.previousValidUntil = keep ? new Date(now.getTime() + overlapSeconds * 1000) : null;
    row.secretCiphertext = encryptSecret(keyring, secret, hookSecretContext(row.id));
    row.keyId = keyring.current().id;
    row.updatedAt = now;
    await tx.flush();
    return row.previousValidUntil ?? undefined;
  });
  await changes.announce(em, 'hookSecrets');
  return { generatedSecret: change.generate ? secret : undefined, previousValidUntil };
}

export async function listHookSecrets(em: EntityManager, companyName: string): Promise<HookSecretSummary[]> {
  const where = companyName === '' ? {} : { company: (await requireCompany(em, companyName)).id };
  const rows = await em.find(HookSecret, where, {
    populate: ['company'],
    orderBy: { company: { name: 'asc' }, activity: 'asc' },
  });
  const now = Date.now();
  return Promise.all(
    rows.map(async (row) => ({
      company: row.company.name,
      activity: row.activity,
      updatedAt: row.updatedAt,
      previousValidUntil:
        row.previousValidUntil && row.previousValidUntil.getTime() > now ? row.previousValidUntil : undefined,
      routePublished: (await publishedScheme(em, row.company, row.activity)) !== undefined,
    })),
  );
}

export async function deleteHookSecret(
  em: EntityManager,
  changes: ChangeAnnouncer,
  companyName: string,
  rawActivity: string,
): Promise<void> {
  const activity = normaliseActivity(rawActivity);
  const company = await requireCompany(em, companyName);
  const deleted = await em.nativeDelete(HookSecret, { company: company.id, activity });
  if (deleted === 0)
    throw new NotFoundError(
      `Company "${company.name}" has no hook secret for activity "${activity}" (list them with: flowhook hook-secret list --company ${shellArg(company.name)})`,
    );
  await changes.announce(em, 'hookSecrets');
}

/** Whether the company has a hook secret for the activity; for publish warnings and the flow card. */
export async function hasHookSecret(em: EntityManager, company: Company, activity: string): Promise<boolean> {
  return (await em.count(HookSecret, { company: company.id, activity: activity.toLowerCase() })) > 0;
}

/** The command that sets the secret (it reads it from stdin, hidden at a terminal), spelled so it can be pasted. */
export function hookSecretSetCommand(company: string, activity: string): string {
  return `flowhook hook-secret set ${shellArg(company)} ${shellArg(activity || '<activity>')}`;
}

/** The scheme of the published direct route of this activity, or undefined when none is published. */
async function publishedScheme(
  em: EntityManager,
  company: Company,
  activity: string,
): Promise<DirectScheme | undefined> {
  const published = await em.findOne(PublishedFlow, { company: company.id, activity }, { populate: ['flowVersion'] });
  return directSchemeOf(published?.flowVersion.definition.trigger?.webhook?.direct?.verify);
}

function normaliseActivity(raw: string): string {
  const activity = raw.trim().toLowerCase();
  if (activity === '') throw new InvalidArgumentError('activity: required');
  if (exceedsNameLimit('activity', activity) || hasControlCharacter(activity))
    throw new InvalidArgumentError(`${nameLimitRule('activity')}, no control characters`);
  return activity;
}
