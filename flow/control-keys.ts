// Flow-control keys (concurrency, throttle, debounce, batch, idempotencyKey)
// are computed when a call arrives, by the engine: which coordinator a call
// goes to — and, for idempotencyKey, which execution id it gets — must be
// known before anything starts. This is the one entry point through which the
// engine evaluates a formula, and it lives in flow/ (the only part
// of workflows/ the engine imports) so that the formulas run the very code the
// interpreter runs: the same Trigger outputs, exact payload values and limits.
// Pure: no I/O, no clock (a key formula cannot read Execution).
import { FormulaError, resolveText, type FormulaContext } from './formula/index.ts';
import { triggerOutputs } from './trigger-outputs.ts';
import type { DirectTriggerRequest } from './flow-contract.ts';

/** What a key formula sees of a call: its trigger outputs and its company. */
export interface KeyedCall {
  company: string;
  activity: string;
  description: string;
  payloadJson: string;
  direct?: DirectTriggerRequest;
}

/**
 * Evaluates key templates against one call (its Trigger outputs are built once): the key as text,
 * as a template writes a formula's value (a string as is, a number as sent, an object as JSON), ''
 * when it yields nothing. Throws a ControlKeyError when the formula fails.
 */
export function controlKeysOf(call: KeyedCall): (template: string) => Promise<string> {
  const context: FormulaContext = {
    Trigger: triggerOutputs(
      {
        company: call.company,
        flowName: '',
        flowVersion: 0,
        steps: [],
        trigger: {
          activity: call.activity,
          description: call.description,
          responseMode: 'INSTANT_RETURN',
          syncTimeoutMs: 0,
          defaultResponse: { statusCode: 200, contentType: '' },
          doNotLogPayload: false,
        },
        payloadJson: call.payloadJson,
        ...(call.direct && { direct: call.direct }),
        caller: '',
      },
      { exactValues: true },
    ),
    Variables: {},
    Steps: {},
    // Never read: publish validation refuses key formulas that name anything but Trigger and Company.
    Execution: { Id: '', StartedAt: '' },
    Company: { Name: call.company },
  };
  return async (template) => {
    try {
      return await resolveText(template, context);
    } catch (error) {
      if (error instanceof FormulaError) throw new ControlKeyError(error.message);
      throw error;
    }
  };
}

/** A key formula failed for this call; the message quotes the formula, never the payload. */
export class ControlKeyError extends Error {}
