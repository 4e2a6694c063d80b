// The connection kind registry (flow/connection-kinds/) as the
// ListConnectionKinds answer: the console builds its connection form from it,
// so a kind added to the registry is offered there without a console change.
import { create } from '@bufbuild/protobuf';
import {
  ConnectionKindInfoSchema,
  type ConnectionKindInfo,
} from '../../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { CONNECTION_KINDS, KIND_SETTINGS } from '../../../flow/index.ts';

export function connectionKindInfos(): ConnectionKindInfo[] {
  return CONNECTION_KINDS.map((kind) =>
    create(ConnectionKindInfoSchema, {
      type: kind.type,
      name: kind.name,
      secretName: kind.secretName,
      settings: kind.settings.map((use) => ({
        field: use.name,
        label: KIND_SETTINGS.find((setting) => setting.name === use.name)?.label ?? use.name,
        help: use.help,
        required: use.required ?? false,
        defaultValue: use.default ?? '',
      })),
    }),
  );
}
