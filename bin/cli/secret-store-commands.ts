// `flowhook secret-store rotate`: a call to SecretStoreAdminService. The
// secret store holds connection and hook secrets encrypted, and the bodies the
// delivery log keeps; this rotates the key they are wrapped under (not a
// flow's webhook secret: that is `secret rotate`; nor a provider route's
// signing secret: `hook-secret set`).
import type { Command } from 'commander';
import { RotateKeyResponseSchema } from '../../proto/gen/flowhook/engine/v1/secret_store_admin_service_pb.js';
import type { AdminRuntime } from './admin-action.ts';
import { rpcCommand } from './admin-command.ts';

/** The delivery log's bodies are re-wrapped in batches, millions of rows maybe: longer than the CLI's usual minute. */
const ROTATE_TIMEOUT_MS = 60 * 60_000;

export function registerSecretStoreCommands(program: Command, runtime: AdminRuntime): void {
  const rotate = program
    .command('secret-store')
    .description('the key that encrypts the stored connection and hook secrets and delivery bodies')
    .command('rotate');
  rpcCommand(runtime, rotate, {
    description: 're-wrap every stored secret under the current key (with a key file: a newly generated one)',
    response: RotateKeyResponseSchema,
    call: (context) => context.client().rotateKey({}, { timeoutMs: ROTATE_TIMEOUT_MS }),
    lines: (response) => {
      const secrets = `${response.rewrapped} ${response.rewrapped === 1 ? 'secret' : 'secrets'}`;
      const bodies = `${response.deliveriesRewrapped} stored delivery ${response.deliveriesRewrapped === 1 ? 'body' : 'bodies'}`;
      const lines = [
        response.generated
          ? `Generated a new key ${response.currentKeyId} and re-wrapped ${secrets} and ${bodies} under it.`
          : `Re-wrapped ${secrets} and ${bodies} under the current key ${response.currentKeyId} (from FLOWHOOK_SECRETS_KEY).`,
      ];
      if (response.retiredKeyIds.length > 0) {
        const where = response.generated ? 'the key file' : 'FLOWHOOK_SECRETS_KEY';
        const keys = response.retiredKeyIds.length === 1 ? 'key' : 'keys';
        lines.push(
          `The older ${keys} ${response.retiredKeyIds.join(', ')} protect${keys === 'key' ? 's' : ''} no secret or delivery body any more and may be removed from ${where}.`,
        );
      }
      return lines;
    },
  });
}
