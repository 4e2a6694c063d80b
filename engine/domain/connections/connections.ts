// Connections: named, company-scoped outbound credentials. Their secrets are
// stored envelope-encrypted (engine/infrastructure/secret-store/) and decrypted only to hand them
// to a worker's httpRequest activity (outbound-service.ts). Nothing here
// returns or logs a secret except resolveConnection.
import { randomUUID } from 'node:crypto';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ConnectionType } from '../../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import {
  CONNECTION_NAME,
  checkConnection,
  connectionKind,
  connectionKindNamed,
  connectionsUsedBy,
  kindSettingsOf,
  trimmedKindSettings,
  type ConnectionSettingsInput,
} from '../../../flow/index.ts';
import { requireCompany } from '../companies/companies.ts';
import { FailedPreconditionError, InvalidArgumentError, NotFoundError } from '../../errors.ts';
import { decryptSecret, encryptSecret } from '../../infrastructure/secret-store/envelope-encryption.ts';
import type { SecretKeyring } from '../../infrastructure/secret-store/secret-keyring.ts';
import { Connection, PublishedFlow, type Company } from '../../infrastructure/storage/entities.ts';
import type { ConnectionSettingsColumn } from '../../infrastructure/storage/connection.entity.ts';
import { withoutTrailingSlashes } from '../../../common/trailing-slashes.ts';
import { shellQuote } from '../../../common/shell-words.ts';

export interface ConnectionChange {
  company: string;
  name: string;
  type: ConnectionType;
  settings: ConnectionSettingsInput;
  secret: string;
}

export interface ResolvedConnection {
  name: string;
  type: ConnectionType;
  settings: ConnectionSettingsInput;
  version: number;
  secret: string;
}

export async function setConnection(
  em: EntityManager,
  keyring: SecretKeyring,
  change: ConnectionChange,
): Promise<{ connection: Connection; created: boolean }> {
  const name = change.name.trim();
  if (!CONNECTION_NAME.test(name))
    throw new InvalidArgumentError(
      `connection name: 1..100 letters, digits, _, - or ., got ${JSON.stringify(change.name)}`,
    );
  const settings = normalise(change.settings);
  const problems = checkConnection(change.type, settings, change.secret);
  if (problems.length > 0)
    throw new InvalidArgumentError(`connection "${name}" is not valid:\n- ${problems.join('\n- ')}`);
  const company = await requireCompany(em, change.company);
  const now = new Date();
  return em.transactional(async (tx) => {
    let connection = await tx.findOne(
      Connection,
      { company: company.id, name },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    const created = !connection;
    connection ??= tx.create(Connection, {
      id: randomUUID(),
      company,
      name,
      type: '',
      settings: {},
      secretCiphertext: '',
      keyId: '',
      version: 0,
      createdAt: now,
      updatedAt: now,
    });
    connection.type = connectionKind(change.type)!.name;
    connection.settings = toColumn(settings);
    connection.secretCiphertext = encryptSecret(keyring, change.secret, secretContext(connection));
    connection.keyId = keyring.current().id;
    connection.version += 1;
    connection.updatedAt = now;
    await tx.flush();
    return { connection, created };
  });
}

export async function listConnections(em: EntityManager, companyName: string): Promise<Connection[]> {
  const company = await requireCompany(em, companyName);
  return em.find(Connection, { company }, { orderBy: { name: 'asc' }, populate: ['company'] });
}

export async function requireConnection(em: EntityManager, companyName: string, name: string): Promise<Connection> {
  const company = await requireCompany(em, companyName);
  const connection = await em.findOne(Connection, { company, name }, { populate: ['company'] });
  if (!connection)
    throw new NotFoundError(
      `Company "${company.name}" has no connection "${name}" (create it with: flowhook connection set ${shellWord(company.name)} ${shellWord(name)} --type …)`,
    );
  return connection;
}

export async function deleteConnection(
  em: EntityManager,
  companyName: string,
  name: string,
  force: boolean,
): Promise<void> {
  const connection = await requireConnection(em, companyName, name);
  const users = await publishedFlowsUsing(em, connection.company, name);
  if (users.length > 0 && !force) {
    throw new FailedPreconditionError(
      `connection "${name}" is used by published flow${users.length > 1 ? 's' : ''} ${users.map((flow) => `"${flow}"`).join(', ')}; unpublish ${users.length > 1 ? 'them' : 'it'} first, or delete with --yes (their httpRequest steps then fail)`,
    );
  }
  await em.nativeDelete(Connection, { id: connection.id });
}

/** Names of the company's published flows whose published version names the connection. */
export async function publishedFlowsUsing(em: EntityManager, company: Company, name: string): Promise<string[]> {
  const published = await em.find(PublishedFlow, { company }, { populate: ['flow', 'flowVersion'] });
  return published
    .filter((entry) => connectionsUsedBy(entry.flowVersion.definition.steps ?? []).has(name))
    .map((entry) => entry.flow.name)
    .sort();
}

/** The connection with its secret, for a worker's activity only. */
export async function resolveConnection(
  em: EntityManager,
  keyring: SecretKeyring,
  companyName: string,
  name: string,
): Promise<ResolvedConnection> {
  const connection = await requireConnection(em, companyName, name);
  const kind = connectionKindNamed(connection.type);
  if (kind === undefined) throw new FailedPreconditionError(`connection "${name}" has an unknown type`);
  return {
    name,
    type: kind.type,
    settings: fromColumn(connection.settings),
    version: connection.version,
    secret: decryptSecret(keyring, connection.secretCiphertext, secretContext(connection)),
  };
}

/** What a secret's ciphertext is bound to: this row, so a ciphertext moved to another row does not decrypt. */
export function secretContext(connection: Connection): string {
  return `connection:${connection.id}`;
}

export function fromColumn(column: ConnectionSettingsColumn): ConnectionSettingsInput {
  return { baseUrl: column.baseUrl ?? '', allowedHosts: column.allowedHosts ?? [], ...kindSettingsOf(column) };
}

export function connectionTypeOf(connection: Connection): ConnectionType {
  return connectionKindNamed(connection.type)?.type ?? ConnectionType.UNSPECIFIED;
}

function normalise(settings: ConnectionSettingsInput): ConnectionSettingsInput {
  return {
    baseUrl: withoutTrailingSlashes(settings.baseUrl.trim()),
    allowedHosts: [
      ...new Set(settings.allowedHosts.map((host) => host.trim().toLowerCase()).filter((host) => host !== '')),
    ],
    ...trimmedKindSettings(settings),
  };
}

function toColumn(settings: ConnectionSettingsInput): ConnectionSettingsColumn {
  const column: ConnectionSettingsColumn = {};
  for (const [key, value] of Object.entries(settings) as [keyof ConnectionSettingsInput, string | string[]][]) {
    if (Array.isArray(value) ? value.length > 0 : value !== '') (column as Record<string, unknown>)[key] = value;
  }
  return column;
}

function shellWord(text: string): string {
  return /^[A-Za-z0-9_.@-]+$/.test(text) ? text : shellQuote(text);
}
