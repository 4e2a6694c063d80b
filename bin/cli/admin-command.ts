// Declaring an admin command. Most make one call whose response is printed as
// one JSON document with --json, or as lines for a person: `rpcCommand` gives
// such a command its description, options, --json (always last) and that
// action (adminAction: lazy client, the error contract). A command that cannot
// be undone goes on only with --yes (`requireYes`): there is no prompt, so a
// script and a person get the same answer.
import type { DescMessage, MessageShape } from '@bufbuild/protobuf';
import { Code } from '@connectrpc/connect';
import type { Command } from 'commander';
import { adminAction, CliError, type CommandContext, type CommandRuntime } from './admin-action.ts';
import { printResponse } from './output.ts';

export interface RpcCommand<C, S extends DescMessage, A extends unknown[]> {
  description: string;
  /** Declares the command's options (--json comes after them). */
  options?: (command: Command) => Command;
  /** What the response holds, where --json's help should say (a secret, or none): "print the response as JSON (it holds …)". */
  jsonHolds?: string;
  /** The response message, for --json. */
  response: S;
  /** Checks the command line and makes the call; gets the positional arguments as commander passes them. */
  call: (context: CommandContext<C>, ...positional: A) => Promise<MessageShape<S>>;
  /** The response for a person. Positional parameters it uses need their types written again: TypeScript does not carry them over from call. */
  lines: (response: MessageShape<S>, context: CommandContext<C>, ...positional: A) => string[];
}

/** Makes `command` (name and arguments declared) an admin command that answers with one call's response. */
export function rpcCommand<C, S extends DescMessage, A extends unknown[]>(
  runtime: CommandRuntime<C>,
  command: Command,
  spec: RpcCommand<C, S, A>,
): Command {
  command.description(spec.description);
  spec.options?.(command);
  return command
    .option('--json', `print the response as JSON${spec.jsonHolds ? ` (it holds ${spec.jsonHolds})` : ''}`)
    .action(
      adminAction(runtime, async (context: CommandContext<C>, ...positional: A) => {
        const response = await spec.call(context, ...positional);
        printResponse(context.io, context.json, spec.response, response, () =>
          spec.lines(response, context, ...positional),
        );
      }),
    );
}

/** Without --yes the command stops here, exit 1 and nothing done, with `refusal`: what would go, and how to confirm. */
export async function requireYes(
  context: CommandContext<unknown>,
  refusal: () => string | Promise<string>,
): Promise<void> {
  if (context.options.yes !== true) throw new CliError(await refusal(), Code.FailedPrecondition);
}
