// `flowhook flow schema`: prints the JSON Schema of flow files
// (flow-json-schema.ts), with the comments of flow.proto as descriptions
// (proto-comments.ts reads them with buf). Needs no engine.
import { Code } from '@connectrpc/connect';
import type { Command } from 'commander';
import { FlowSchema } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { adminAction, CliError, type AdminRuntime } from './admin-action.ts';
import { flowJsonSchema, type ProtoComments } from './flow-json-schema.ts';
import { commentKey, commentsByName, compileWithComments, PROTO_ROOT } from './proto-comments.ts';

export function registerFlowSchemaCommand(flow: Command, runtime: AdminRuntime): void {
  flow
    .command('schema')
    .description('print the JSON Schema of flow files, for editors (committed as flow.schema.json)')
    .option('--json', 'the schema is JSON either way; errors are printed as JSON too')
    .action(
      adminAction(runtime, async (context) => {
        context.io.out(await flowSchemaText());
      }),
    );
}

/** Exactly what `flowhook flow schema` prints, and what flow.schema.json must hold. */
export async function flowSchemaText(): Promise<string> {
  let comments: ReadonlyMap<string, string>;
  try {
    comments = commentsByName((await compileWithComments([`${PROTO_ROOT}/${FlowSchema.file.proto.name}`])).file);
  } catch (error) {
    throw new CliError((error as Error).message, Code.FailedPrecondition);
  }
  const byElement: ProtoComments = (element) => comments.get(commentKey(element));
  return `${JSON.stringify(flowJsonSchema(byElement), null, 2)}\n`;
}
