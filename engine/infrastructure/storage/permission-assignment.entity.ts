import { defineEntity, p } from '@mikro-orm/core';
import { Company } from './company.entity.ts';
import { ServiceUser } from './service-user.entity.ts';

/** A permission set granted to a service user for one company, or for all (company null). */
export const PermissionAssignmentSchema = defineEntity({
  name: 'PermissionAssignment',
  tableName: 'permission_assignment',
  properties: {
    id: p.uuid().primary(),
    serviceUser: () => p.manyToOne(ServiceUser).deleteRule('cascade').index('permission_assignment_service_user_id_index'),
    company: () => p.manyToOne(Company).nullable().deleteRule('cascade'),
    permissionSet: p.string().length(50),
  },
});

export class PermissionAssignment extends PermissionAssignmentSchema.class {}
PermissionAssignmentSchema.setClass(PermissionAssignment);
