// What a flow may ask for, and where and how it may call out.
import { DEFAULT_FLOW_LIMITS } from '../../flow-limits.ts';
import { MAX_JSON_DEPTH } from '../../json-depth.ts';
import { setting, settingsGroup } from '../setting.ts';
import { boolean } from '../values/boolean-value.ts';
import { duration } from '../values/duration-value.ts';
import { integer } from '../values/integer-value.ts';
import { text } from '../values/text-value.ts';

export const FLOW_SETTINGS = settingsGroup('Flows and outbound calls', {
  FLOWHOOK_MAX_HTTP_TIMEOUT: setting({
    type: duration({ min: 1000 }),
    default: DEFAULT_FLOW_LIMITS.maxHttpTimeoutMs,
    processes: ['engine'],
    meaning: 'longest `httpRequest.timeout` a flow may set (checked at publish and run time)',
  }),
  FLOWHOOK_MAX_DEFERRAL: setting({
    type: duration({ min: 1000 }),
    default: DEFAULT_FLOW_LIMITS.maxDeferralMs,
    processes: ['engine'],
    meaning: 'longest `sleep` / `waitUntil` wait (checked at publish and run time)',
  }),
  FLOWHOOK_EGRESS_ALLOW: setting({
    type: text({ description: 'comma list of egress rules' }),
    defaultText: 'empty',
    processes: ['worker', 'engine'],
    meaning:
      'hosts, `host:port`, IPs and CIDRs (comma-separated) flows (and the engine sending alerts) may reach although internal',
    more: "flowhook's own ports stay shut unless a `host:port` entry names them (see [the egress policy](../explanation/security.md#outbound-calls-the-egress-policy)).",
  }),
  FLOWHOOK_HTTP_MAX_RESPONSE_BYTES: setting({
    type: integer({ min: 1, unit: 'bytes' }),
    default: 4 * 1024 * 1024,
    processes: ['worker'],
    meaning: 'cap on one `httpRequest` answer, after decompression',
  }),
  FLOWHOOK_HTTP_MAX_JSON_DEPTH: setting({
    type: integer({ min: 1 }),
    default: MAX_JSON_DEPTH,
    processes: ['worker'],
    meaning: 'JSON/XML answers nesting deeper fail the step',
  }),
  FLOWHOOK_WORKFLOW_STACK_TRACES: setting({
    type: boolean(),
    default: false,
    processes: ['worker'],
    meaning: "`true` keeps JavaScript stack traces inside workflow code (Temporal's stack trace query, failure stacks)",
    more: "Off by default: the SDK records one per promise, which cost about half of a short flow's worker CPU; flow failures are reported by step and reason either way.",
  }),
});
