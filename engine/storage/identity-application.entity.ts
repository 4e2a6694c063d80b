import { defineEntity, p } from '@mikro-orm/core';

/**
 * An identity-provider application allowed to call with an OAuth 2.0
 * client-credentials token (spec §5.1): the host's application card. Its
 * tokens are accepted only while it is enabled and consent is granted.
 */
export const IdentityApplicationSchema = defineEntity({
  name: 'IdentityApplication',
  tableName: 'identity_application',
  properties: {
    id: p.uuid().primary(),
    /** The identity provider's client id, as the token's `azp`/`appid`/`client_id` claim carries it. */
    clientId: p.string().length(250).unique('identity_application_client_id_unique'),
    description: p.string().length(250),
    enabled: p.boolean(),
    consentGranted: p.boolean(),
    createdAt: p.datetime(),
  },
});

export class IdentityApplication extends IdentityApplicationSchema.class {}
IdentityApplicationSchema.setClass(IdentityApplication);
