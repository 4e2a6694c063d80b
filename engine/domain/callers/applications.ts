// Identity-provider applications (OAuth 2.0 callers): registered by issuer and client
// id — a client id is only the issuer's name for an application — optionally
// bound to a tenant, with consent, state and permission sets per company. The
// issuer is required: a registration without one would accept the client id
// from any trusted issuer. Rows from before issuers were bound (issuer null,
// refused at call time) are bound by registering them again with an issuer.
// The one set an application can be given is FLOW INTEGR.: FLOW ALL alone
// never lets it call (it has no user licence) and SUPER is never assignable
// to an application. A set is assigned for one company unless the operator
// says all companies: a grant in every tenant is never what silence means.
import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ChangeAnnouncer } from '../../infrastructure/cache/change-feed.ts';
import { ApplicationPermission, IdentityApplication } from '../../infrastructure/storage/entities.ts';
import { FailedPreconditionError, InvalidArgumentError, NotFoundError } from '../../errors.ts';
import { normalizeIssuer } from './application-issuer.ts';
import { requireUsablePermissionSet } from './caller-permission-sets.ts';
import { requireCompany } from '../companies/companies.ts';
import { saveCallerChange } from './caller-changes.ts';

export interface AppRegistration {
  clientId: string;
  /** The issuer whose tokens carry the client id; required. */
  issuer: string;
  /** The tenant its tokens must name; undefined keeps the current one (a new application: any), null drops it. */
  tenantId?: string | null;
  description?: string;
  company?: string;
  /** The permission set is for every company; required (instead of a company) to assign one without a company. */
  allCompanies?: boolean;
  permissionSet?: string;
  consentGranted?: boolean;
  /** State of a new application; undefined keeps an existing one's (new ones start disabled). */
  enabled?: boolean;
}

export interface AppView {
  app: IdentityApplication;
  permissionSets: { permissionSet: string; company: string }[];
}

export async function registerApplication(
  em: EntityManager,
  changes: ChangeAnnouncer,
  request: AppRegistration,
): Promise<{ view: AppView; created: boolean }> {
  const clientId = request.clientId.trim();
  // Entra client ids are GUIDs; other providers use URLs or plain names.
  if (!/^[A-Za-z0-9._:/@-]{1,250}$/.test(clientId))
    throw new InvalidArgumentError('client id: 1-250 characters of letters, digits, . _ : / @ -');
  const issuer = requireIssuer(request.issuer);
  const tenantId =
    request.tenantId === undefined || request.tenantId === null ? request.tenantId : requireTenant(request.tenantId);
  const description = request.description?.trim() ?? '';
  if (description.length > 250) throw new InvalidArgumentError('description: at most 250 characters');
  // FLOW ALL alone never lets an application call and SUPER is never assignable: refused here, not answered 403 at every call.
  const permissionSet = request.permissionSet
    ? requireUsablePermissionSet('application', request.permissionSet)
    : undefined;
  requireGrantScope(clientId, request.company, request.allCompanies ?? false, permissionSet);
  const registered = await em.transactional(async (tx) => {
    const company = request.company ? await requireCompany(tx, request.company) : null;
    // The registration under this issuer, else the client id's unbound one (from before issuers were bound), bound now.
    let app =
      (await tx.findOne(IdentityApplication, { issuer, clientId })) ??
      (await tx.findOne(IdentityApplication, { issuer: null, clientId }));
    const created = !app;
    app ??= tx.create(IdentityApplication, {
      id: randomUUID(),
      clientId,
      issuer,
      tenantId: null,
      description,
      enabled: false,
      consentGranted: false,
      createdAt: new Date(),
    });
    app.issuer = issuer;
    if (tenantId !== undefined) app.tenantId = tenantId;
    if (description) app.description = description;
    if (request.consentGranted) app.consentGranted = true;
    if (request.enabled !== undefined) app.enabled = request.enabled;
    if (permissionSet) {
      const existing = await tx.count(ApplicationPermission, {
        application: app.id,
        company: company?.id ?? null,
        permissionSet,
      });
      if (existing === 0)
        tx.create(ApplicationPermission, { id: randomUUID(), application: app, company, permissionSet });
    }
    await tx.flush();
    return { view: await appView(tx, app), created };
  });
  await changes.announce(em, 'users');
  return registered;
}

/**
 * Withdraws consent: the next call with the application's tokens is refused
 * (app_not_consented) in every engine. Its sets, State and issuer stay, so
 * registering it again with consent restores it as it was.
 */
export async function revokeApplicationConsent(
  em: EntityManager,
  changes: ChangeAnnouncer,
  clientId: string,
  issuer: string | undefined,
): Promise<{ view: AppView; wasGranted: boolean }> {
  const app = await requireApplication(em, clientId, issuer);
  const wasGranted = app.consentGranted;
  app.consentGranted = false;
  await saveCallerChange(em, changes);
  return { view: await appView(em, app), wasGranted };
}

export async function listApplications(em: EntityManager): Promise<AppView[]> {
  const apps = await em.find(IdentityApplication, {}, { orderBy: { clientId: 'asc', issuer: 'asc' } });
  return Promise.all(apps.map((app) => appView(em, app)));
}

/** The client id's registration under the issuer given, or its only one when none is given. */
export async function requireApplication(
  em: EntityManager,
  clientId: string,
  issuer: string | undefined,
): Promise<IdentityApplication> {
  const registrations = await em.find(
    IdentityApplication,
    { clientId: clientId.trim() },
    { orderBy: { issuer: 'asc' } },
  );
  if (issuer !== undefined && issuer.trim() !== '') {
    const wanted = normalizeIssuer(issuer);
    const app = registrations.find((registration) => registration.issuer === wanted);
    if (!app)
      throw new NotFoundError(
        `Application "${clientId}" is not registered under issuer "${wanted}"${registrations.length > 0 ? `; it is under: ${registrations.map(issuerName).join(', ')}` : ''}`,
      );
    return app;
  }
  const [app, ...others] = registrations;
  if (!app) throw new NotFoundError(`Application "${clientId}" is not registered`);
  if (others.length > 0)
    throw new FailedPreconditionError(
      `Application "${clientId}" is registered under ${registrations.length} issuers (${registrations.map(issuerName).join(', ')}); name one with --issuer`,
    );
  return app;
}

/** A permission set needs a scope the operator chose: one company, or all of them said out loud. */
function requireGrantScope(
  clientId: string,
  company: string | undefined,
  allCompanies: boolean,
  permissionSet: string | undefined,
): void {
  if (allCompanies && company)
    throw new InvalidArgumentError('give either a company (--company) or all companies (--all-companies), not both');
  if (allCompanies && !permissionSet)
    throw new InvalidArgumentError(
      'all companies (--all-companies) is the scope of a permission set; give the set too (--permission-set)',
    );
  if (permissionSet && !company && !allCompanies) {
    throw new InvalidArgumentError(
      `the permission set "${permissionSet}" needs a scope: --company <name> assigns it in that company; ` +
        `--all-companies assigns it in every company, also ones created later: flowhook app register ${clientId} --issuer <url> --company <name> --permission-set "${permissionSet}"`,
    );
  }
}

function issuerName(app: IdentityApplication): string {
  return app.issuer ?? '(no issuer)';
}

/** An absolute http(s) URL, as `iss` is; stored without a trailing slash. */
function requireIssuer(value: string | undefined): string {
  const issuer = normalizeIssuer(value ?? '');
  if (issuer === '')
    throw new InvalidArgumentError(
      "issuer: required — the issuer whose tokens carry this client id, one of the facade's FLOWHOOK_OAUTH_ISSUERS (--issuer <url>)",
    );
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new InvalidArgumentError(
      `issuer: "${issuer.slice(0, 100)}" is not a URL; use the token's exact \`iss\`, e.g. https://login.microsoftonline.com/<tenant>/v2.0`,
    );
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || issuer.length > 1000)
    throw new InvalidArgumentError("issuer: an http(s) URL of at most 1000 characters, the token's exact `iss`");
  return issuer;
}

function requireTenant(value: string): string {
  const tenantId = value.trim();
  if (!/^[A-Za-z0-9._-]{1,250}$/.test(tenantId))
    throw new InvalidArgumentError(
      'tenant: 1-250 characters of letters, digits, . _ - (Entra ID: the directory (tenant) ID)',
    );
  return tenantId;
}

/** The application with its permission sets, as operators see it. */
export async function appView(em: EntityManager, app: IdentityApplication): Promise<AppView> {
  const assignments = await em.find(
    ApplicationPermission,
    { application: app.id },
    { populate: ['company'], orderBy: { permissionSet: 'asc' } },
  );
  return {
    app,
    permissionSets: assignments.map((a) => ({ permissionSet: a.permissionSet, company: a.company?.name ?? '' })),
  };
}
