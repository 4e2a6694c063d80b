import { p } from '@mikro-orm/core';
import { definePermissionGrant } from './permission-grant.ts';
import { ServiceUser } from './service-user.entity.ts';

/** A permission set granted to a service user for one company, or for all (company null). */
export const PermissionAssignmentSchema = definePermissionGrant('PermissionAssignment', 'permission_assignment', {
  serviceUser: () =>
    p.manyToOne(ServiceUser).deleteRule('cascade').index('permission_assignment_service_user_id_index'),
});

export class PermissionAssignment extends PermissionAssignmentSchema.class {}
PermissionAssignmentSchema.setClass(PermissionAssignment);
