import { defineEntity, p } from '@mikro-orm/core';
import { Company } from './company.entity.ts';
import { IdentityApplication } from './identity-application.entity.ts';

/** A permission set assigned to an identity-provider application for one company, or for all (company null). */
export const ApplicationPermissionSchema = defineEntity({
  name: 'ApplicationPermission',
  tableName: 'application_permission',
  properties: {
    id: p.uuid().primary(),
    application: () => p.manyToOne(IdentityApplication).deleteRule('cascade').index('application_permission_application_id_index'),
    company: () => p.manyToOne(Company).nullable().deleteRule('cascade'),
    permissionSet: p.string().length(50),
  },
});

export class ApplicationPermission extends ApplicationPermissionSchema.class {}
ApplicationPermissionSchema.setClass(ApplicationPermission);
