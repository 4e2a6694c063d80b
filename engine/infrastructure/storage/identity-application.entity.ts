import { defineEntity, p } from '@mikro-orm/core';
import { uuidRow } from './uuid-row.ts';

/**
 * An identity-provider application allowed to call with an OAuth 2.0
 * client-credentials token: the host's application card. Its
 * tokens are accepted only while it is enabled and consent is granted, and
 * only from the issuer it was registered under (and tenant, when one is set):
 * a client id is the issuer's name for an application, so the same client id
 * from another trusted issuer is another application — hence the unique
 * (issuer, client id) pair.
 */
export const IdentityApplicationSchema = defineEntity({
  name: 'IdentityApplication',
  tableName: 'identity_application',
  uniques: [{ name: 'identity_application_issuer_client_id_unique', properties: ['issuer', 'clientId'] }],
  properties: uuidRow({
    /** The identity provider's client id, as the token's `azp`/`appid`/`client_id` claim carries it. */
    clientId: p.string().length(250),
    /**
     * The issuer (`iss`) its tokens must come from, without a trailing slash.
     * Null only for rows registered before issuers were bound: their tokens
     * are refused (`app_issuer_unset`) until registered again with an issuer.
     */
    issuer: p.text().nullable(),
    /** The tenant (`tid`) its tokens must name; null: any tenant of the issuer. */
    tenantId: p.string().length(250).nullable(),
    description: p.string().length(250),
    enabled: p.boolean(),
    consentGranted: p.boolean(),
    createdAt: p.datetime(),
  }),
});

export class IdentityApplication extends IdentityApplicationSchema.class {}
IdentityApplicationSchema.setClass(IdentityApplication);
