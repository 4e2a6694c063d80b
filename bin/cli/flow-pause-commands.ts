// `flowhook flow pause|resume <company> <flow>`: hold a flow's executions
// (calls are still accepted and answered) and let them run again.
import { toJson } from '@bufbuild/protobuf';
import type { Command } from 'commander';
import { PauseFlowResponseSchema, ResumeFlowResponseSchema } from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { adminAction, type AdminContext, type AdminRuntime } from './admin-action.ts';
import { printJson, printLines, shellArg } from './output.ts';
import { JSON_OPTIONS } from './flow-commands.ts';

export function registerFlowPauseCommands(flow: Command, runtime: AdminRuntime): void {
  const verbs = [
    {
      verb: 'pause',
      description: 'hold the flow: calls are still accepted and answered, their executions wait until resume',
      send: (context: AdminContext, company: string, name: string) => context.client().pauseFlow({ company, name }),
      schema: PauseFlowResponseSchema,
      changed: (company: string, name: string) =>
        `Paused flow "${name}" (company ${company}): calls are accepted, their executions wait until: flowhook flow resume ${shellArg(company)} ${shellArg(name)}`,
      unchanged: 'was paused already; nothing changed',
    },
    {
      verb: 'resume',
      description: 'let the held executions run, in arrival order; new calls start as usual again',
      send: (context: AdminContext, company: string, name: string) => context.client().resumeFlow({ company, name }),
      schema: ResumeFlowResponseSchema,
      changed: (company: string, name: string) => `Resumed flow "${name}" (company ${company}): held executions run now, in arrival order.`,
      unchanged: 'was not paused; nothing changed',
    },
  ] as const;
  for (const command of verbs) {
    flow
      .command(command.verb)
      .description(command.description)
      .argument('<company>')
      .argument('<name>')
      .option('--json', 'print the response as JSON')
      .action(
        adminAction(runtime, async (context, company: string, name: string) => {
          const response = await command.send(context, company, name);
          if (context.json) return printJson(context.io, toJson(command.schema, response, JSON_OPTIONS));
          printLines(context.io, [response.changed ? command.changed(company, name) : `Flow "${name}" (company ${company}) ${command.unchanged}.`]);
        }),
      );
  }
}
