import { defineEntity, p } from '@mikro-orm/core';
import { uuidRow } from './uuid-row.ts';

/**
 * A licensed service user for the Basic path (user name and access key). The web service
 * access key is stored as its SHA-256 hash; it can expire and the user can be
 * disabled.
 */
export const ServiceUserSchema = defineEntity({
  name: 'ServiceUser',
  tableName: 'service_user',
  properties: uuidRow({
    name: p.string().length(250).unique('service_user_name_unique'),
    accessKeyHash: p.string().length(64),
    accessKeyExpiresAt: p.datetime().nullable(),
    enabled: p.boolean(),
    createdAt: p.datetime(),
  }),
});

export class ServiceUser extends ServiceUserSchema.class {}
ServiceUserSchema.setClass(ServiceUser);
