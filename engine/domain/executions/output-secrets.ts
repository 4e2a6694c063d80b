// Step outputs and the caller's answer as the execution page shows them,
// without the secrets of the connections the flow calls with. A server that
// echoes a request's headers (or answers with the credentials it was sent)
// puts a connection's secret into the step's output, and a flow may pass it
// on in its answer: that is the flow's data, but no page or answer of the
// engine repeats a connection's secret, so every occurrence of the current
// secret of each connection the execution's steps name is replaced.
// A secret replaced since the execution ran is no longer known here, so an
// output may still hold an old one (docs/console.md says so).
import type { MikroORM } from '@mikro-orm/postgresql';
import type { CallerAnswer, StepOutput } from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import type { StepJson } from '../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import type { FlowExecutionInput } from '../../../flow/index.ts';
import { resolveConnection } from '../connections/connections.ts';
import type { SecretKeyring } from '../../infrastructure/secret-store/secret-keyring.ts';

export const SECRET_WITHHELD = '[connection secret withheld]';

/** A function that replaces the current secrets of the connections the execution's steps name; identity when there are none. */
export async function connectionSecretScrubber(
  deps: { orm: MikroORM; keyring: SecretKeyring },
  input: FlowExecutionInput | undefined,
): Promise<(text: string) => string> {
  const secrets: string[] = [];
  for (const name of connectionsOf(input?.steps)) {
    try {
      const connection = await resolveConnection(deps.orm.em.fork(), deps.keyring, input!.company, name);
      if (connection.secret) secrets.push(connection.secret);
    } catch {
      // Deleted since (or undecryptable): nothing current to look for.
    }
  }
  if (secrets.length === 0) return (text) => text;
  // The longest first, so a secret that contains another is replaced whole; in JSON text a secret may stand escaped.
  const forms = [...new Set(secrets.flatMap((secret) => [secret, JSON.stringify(secret).slice(1, -1)]))].sort(
    (a, b) => b.length - a.length,
  );
  return (text) => forms.reduce((scrubbed, secret) => scrubbed.split(secret).join(SECRET_WITHHELD), text);
}

/** Step outputs and the caller's answer (and a late one) without those secrets. */
export function scrubbed<T extends { stepOutputs: StepOutput[]; answer?: CallerAnswer }>(
  response: T,
  scrub: (text: string) => string,
): T {
  const stepOutputs = response.stepOutputs.map((output) => ({ ...output, outputJson: scrub(output.outputJson) }));
  if (!response.answer) return { ...response, stepOutputs };
  const { body, lateAnswer } = response.answer;
  return {
    ...response,
    stepOutputs,
    answer: {
      ...response.answer,
      body: scrub(body),
      lateAnswer: lateAnswer && { ...lateAnswer, body: scrub(lateAnswer.body) },
    },
  };
}

/** The connection names of every httpRequest step, `if` branches included. */
function connectionsOf(steps: readonly StepJson[] | undefined, into = new Set<string>()): Set<string> {
  for (const step of steps ?? []) {
    if (step.httpRequest?.connection) into.add(step.httpRequest.connection);
    connectionsOf(step.if?.then, into);
    connectionsOf(step.if?.else, into);
  }
  return into;
}
