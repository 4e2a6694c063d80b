// Identity-provider applications (spec §5.1): registered by client id, with
// consent, state and permission sets per company. The one set an application
// can be given is FLOW INTEGR.: FLOW ALL alone never lets it call (it has no
// user licence) and SUPER is never assignable to an application.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeAnnouncer } from '../cache/change-feed.ts';
import { ApplicationPermission, IdentityApplication } from '../storage/entities.ts';
import { InvalidArgumentError, NotFoundError } from '../errors.ts';
import { requireUsablePermissionSet } from './caller-permission-sets.ts';
import { requireCompany } from './companies.ts';

export interface AppRegistration {
  clientId: string;
  description?: string;
  company?: string;
  permissionSet?: string;
  consentGranted?: boolean;
  /** State of a new application; undefined keeps an existing one's (new ones start disabled). */
  enabled?: boolean;
}

export interface AppView {
  app: IdentityApplication;
  permissionSets: { permissionSet: string; company: string }[];
}

export async function registerApplication(em: EntityManager, changes: ChangeAnnouncer, request: AppRegistration): Promise<{ view: AppView; created: boolean }> {
  const clientId = request.clientId.trim();
  // Entra client ids are GUIDs; other providers use URLs or plain names.
  if (!/^[A-Za-z0-9._:/@-]{1,250}$/.test(clientId)) throw new InvalidArgumentError('client id: 1-250 characters of letters, digits, . _ : / @ -');
  const description = request.description?.trim() ?? '';
  if (description.length > 250) throw new InvalidArgumentError('description: at most 250 characters');
  // FLOW ALL alone never lets an application call and SUPER is never assignable: refused here, not answered 403 at every call.
  const permissionSet = request.permissionSet ? requireUsablePermissionSet('application', request.permissionSet) : undefined;
  const registered = await em.transactional(async (tx) => {
    const company = request.company ? await requireCompany(tx, request.company) : null;
    let app = await tx.findOne(IdentityApplication, { clientId });
    const created = !app;
    app ??= tx.create(IdentityApplication, { id: randomUUID(), clientId, description, enabled: false, consentGranted: false, createdAt: new Date() });
    if (description) app.description = description;
    if (request.consentGranted) app.consentGranted = true;
    if (request.enabled !== undefined) app.enabled = request.enabled;
    if (permissionSet) {
      const existing = await tx.count(ApplicationPermission, { application: app.id, company: company?.id ?? null, permissionSet });
      if (existing === 0) tx.create(ApplicationPermission, { id: randomUUID(), application: app, company, permissionSet });
    }
    await tx.flush();
    return { view: await appView(tx, app), created };
  });
  await changes.announce(em, 'users');
  return registered;
}

export async function setApplicationState(em: EntityManager, changes: ChangeAnnouncer, clientId: string, enabled: boolean): Promise<AppView> {
  const app = await requireApplication(em, clientId);
  app.enabled = enabled;
  await em.flush();
  await changes.announce(em, 'users');
  return appView(em, app);
}

export async function listApplications(em: EntityManager): Promise<AppView[]> {
  const apps = await em.find(IdentityApplication, {}, { orderBy: { clientId: 'asc' } });
  return Promise.all(apps.map((app) => appView(em, app)));
}

async function requireApplication(em: EntityManager, clientId: string): Promise<IdentityApplication> {
  const app = await em.findOne(IdentityApplication, { clientId: clientId.trim() });
  if (!app) throw new NotFoundError(`Application "${clientId}" is not registered`);
  return app;
}

async function appView(em: EntityManager, app: IdentityApplication): Promise<AppView> {
  const assignments = await em.find(ApplicationPermission, { application: app.id }, { populate: ['company'], orderBy: { permissionSet: 'asc' } });
  return { app, permissionSets: assignments.map((a) => ({ permissionSet: a.permissionSet, company: a.company?.name ?? '' })) };
}
