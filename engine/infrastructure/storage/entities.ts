// The explicit entity list (no folder scanning), in dependency order.
import { ApplicationPermissionSchema } from './application-permission.entity.ts';
import { CompanySchema } from './company.entity.ts';
import { ConnectionSchema } from './connection.entity.ts';
import { FlowVersionSchema } from './flow-version.entity.ts';
import { FlowSchema } from './flow.entity.ts';
import { IdentityApplicationSchema } from './identity-application.entity.ts';
import { PermissionAssignmentSchema } from './permission-assignment.entity.ts';
import { PublishedFlowSchema } from './published-flow.entity.ts';
import { RecordWriteSchema } from './record-write.entity.ts';
import { RecordSchema } from './record.entity.ts';
import { ServiceUserSchema } from './service-user.entity.ts';
import { ServiceAccountSchema } from './service-account.entity.ts';
import { EngineKeySchema } from './engine-key.entity.ts';
import { HookSecretSchema } from './hook-secret.entity.ts';
import { CallbackWaitSchema } from './callback-wait.entity.ts';
import { EngineNodeSchema } from './engine-node.entity.ts';
import { AuditEventSchema } from './audit-event.entity.ts';
import { ProviderDeliverySchema } from './provider-delivery.entity.ts';
import { ConsoleSessionSchema } from './console-session.entity.ts';
import { DeliverySchema } from './delivery.entity.ts';
import { AlertRuleSchema } from './alert-rule.entity.ts';

export const ENTITIES = [
  CompanySchema,
  FlowSchema,
  FlowVersionSchema,
  PublishedFlowSchema,
  ServiceUserSchema,
  PermissionAssignmentSchema,
  RecordSchema,
  RecordWriteSchema,
  IdentityApplicationSchema,
  ApplicationPermissionSchema,
  ConnectionSchema,
  ServiceAccountSchema,
  EngineKeySchema,
  HookSecretSchema,
  CallbackWaitSchema,
  EngineNodeSchema,
  AuditEventSchema,
  ProviderDeliverySchema,
  ConsoleSessionSchema,
  DeliverySchema,
  AlertRuleSchema,
];

export { Company } from './company.entity.ts';
export { Flow } from './flow.entity.ts';
export { FlowVersion } from './flow-version.entity.ts';
export { PublishedFlow } from './published-flow.entity.ts';
export { ServiceUser } from './service-user.entity.ts';
export { PermissionAssignment } from './permission-assignment.entity.ts';
export { FlowRecord } from './record.entity.ts';
export { RecordWrite } from './record-write.entity.ts';
export { IdentityApplication } from './identity-application.entity.ts';
export { ApplicationPermission } from './application-permission.entity.ts';
export { Connection } from './connection.entity.ts';
export { ServiceAccount } from './service-account.entity.ts';
export { EngineKey } from './engine-key.entity.ts';
export { HookSecret } from './hook-secret.entity.ts';
export { CallbackWait } from './callback-wait.entity.ts';
export { EngineNode } from './engine-node.entity.ts';
export { AuditEvent } from './audit-event.entity.ts';
export { ProviderDelivery } from './provider-delivery.entity.ts';
export { ConsoleSession } from './console-session.entity.ts';
export { Delivery } from './delivery.entity.ts';
export { AlertRule } from './alert-rule.entity.ts';
