// The flow model's surface, what the engine imports of it: a leaf, it loads nothing of workflows/
// (test/unit/step-registry.test.ts checks), so validating a flow runs no workflow code.
export * from './flow-contract.ts';
export * from './flow-answer.ts';
export * from './callback-contract.ts';
export { formatDuration, parseDuration } from '../common/duration.ts';
export { validateFlow, type FlowProblems } from './flow-validation.ts';
export {
  resolveTrigger,
  DEFAULT_SYNC_TIMEOUT_SECONDS,
  MAX_SYNC_TIMEOUT_SECONDS,
  type ResolvedTrigger,
} from './trigger-defaults.ts';
export { stepKind, stepDescription, STEP_KINDS, type StepKind } from './steps/step-registry.ts';
export { CONNECTION_KINDS, connectionKind, connectionKindNamed } from './connection-kinds/connection-kind-registry.ts';
export { checkConnection } from './connection-kinds/connection-check.ts';
export { CONNECTION_NAME } from './connection-name.ts';
export {
  KIND_SETTINGS,
  kindSettingsOf,
  trimmedKindSettings,
  type ConnectionSettingsInput,
  type KindSettings,
} from './connection-kinds/connection-settings.ts';
export { connectionsUsedBy } from './flow-connections.ts';
export { DEFAULT_FLOW_LIMITS, type FlowLimits } from '../common/flow-limits.ts';
export { DIRECT_SCHEMES, directSchemeOf, type DirectScheme } from './direct-route.ts';
export { isJsonMediaType, FORM_MEDIA_TYPE } from './media-types.ts';
