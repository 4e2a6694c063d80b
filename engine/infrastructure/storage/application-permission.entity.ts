import { p } from '@mikro-orm/core';
import { IdentityApplication } from './identity-application.entity.ts';
import { definePermissionGrant } from './permission-grant.ts';

/** A permission set assigned to an identity-provider application for one company, or for all (company null). */
export const ApplicationPermissionSchema = definePermissionGrant('ApplicationPermission', 'application_permission', {
  application: () =>
    p.manyToOne(IdentityApplication).deleteRule('cascade').index('application_permission_application_id_index'),
});

export class ApplicationPermission extends ApplicationPermissionSchema.class {}
ApplicationPermissionSchema.setClass(ApplicationPermission);
