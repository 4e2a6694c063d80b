// `flowhook flow pause|resume <company> <flow>`: hold a flow's executions
// (calls are still accepted and answered) and let them run again.
import type { Command } from 'commander';
import {
  PauseFlowResponseSchema,
  ResumeFlowResponseSchema,
} from '../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import type { AdminContext, AdminRuntime } from './admin-action.ts';
import { rpcCommand } from './admin-command.ts';
import { shellArg } from './output.ts';

export function registerFlowPauseCommands(flow: Command, runtime: AdminRuntime): void {
  const verbs = [
    {
      verb: 'pause',
      description: 'hold the flow: calls are still accepted and answered, their executions wait until resume',
      response: PauseFlowResponseSchema,
      send: (context: AdminContext, company: string, name: string) => context.client().pauseFlow({ company, name }),
      changed: (company: string, name: string) =>
        `Paused flow "${name}" (company ${company}): calls are accepted, their executions wait until: flowhook flow resume ${shellArg(company)} ${shellArg(name)}`,
      unchanged: 'was paused already; nothing changed',
    },
    {
      verb: 'resume',
      description: 'let the held executions run, in arrival order; new calls start as usual again',
      response: ResumeFlowResponseSchema,
      send: (context: AdminContext, company: string, name: string) => context.client().resumeFlow({ company, name }),
      changed: (company: string, name: string) =>
        `Resumed flow "${name}" (company ${company}): held executions run now, in arrival order.`,
      unchanged: 'was not paused; nothing changed',
    },
  ] as const;
  for (const { verb, description, response, send, changed, unchanged } of verbs) {
    rpcCommand(runtime, flow.command(`${verb} <company> <name>`), {
      description,
      response,
      call: send,
      lines: (answer, _context, company: string, name: string) => [
        answer.changed ? changed(company, name) : `Flow "${name}" (company ${company}) ${unchanged}.`,
      ],
    });
  }
}
