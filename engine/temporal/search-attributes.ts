// Search attributes that let operators find executions in the Temporal UI by
// company, activity, flow, response mode and caller (`user:<name>` or
// `app:<clientId>`). They must be registered on the namespace; the engine
// registers missing ones at start where the server allows it (dev server,
// self-hosted) and otherwise runs without them.
import { defineSearchAttributeKey, SearchAttributeType, type SearchAttributePair } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import protos from '@temporalio/proto';

export const COMPANY_KEY = defineSearchAttributeKey('Company', SearchAttributeType.KEYWORD);
export const FLOW_ACTIVITY_KEY = defineSearchAttributeKey('FlowActivity', SearchAttributeType.KEYWORD);
export const FLOW_NAME_KEY = defineSearchAttributeKey('FlowName', SearchAttributeType.KEYWORD);
export const RESPONSE_MODE_KEY = defineSearchAttributeKey('ResponseMode', SearchAttributeType.KEYWORD);
export const FLOW_CALLER_KEY = defineSearchAttributeKey('FlowCaller', SearchAttributeType.KEYWORD);

/** Name → type, as `temporal server start-dev --search-attribute Name=Type` wants them. */
export const SEARCH_ATTRIBUTES: Record<string, 'Keyword'> = {
  Company: 'Keyword',
  FlowActivity: 'Keyword',
  FlowName: 'Keyword',
  ResponseMode: 'Keyword',
  FlowCaller: 'Keyword',
};

/** Returns true when all attributes exist (or were added) on the namespace. */
export async function ensureSearchAttributes(client: Client, namespace: string): Promise<boolean> {
  const operator = client.connection.operatorService;
  const existing = await operator.listSearchAttributes({ namespace });
  const custom = existing.customAttributes ?? {};
  const missing = Object.keys(SEARCH_ATTRIBUTES).filter((name) => !(name in custom));
  if (missing.length === 0) return true;
  const keyword = protos.temporal.api.enums.v1.IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD;
  await operator.addSearchAttributes({ namespace, searchAttributes: Object.fromEntries(missing.map((name) => [name, keyword])) });
  return true;
}

export function executionSearchAttributes(values: { company: string; activity: string; flowName: string; responseMode: string; caller: string }): SearchAttributePair[] {
  return [
    { key: COMPANY_KEY, value: values.company },
    { key: FLOW_ACTIVITY_KEY, value: values.activity },
    { key: FLOW_NAME_KEY, value: values.flowName },
    { key: RESPONSE_MODE_KEY, value: values.responseMode },
    { key: FLOW_CALLER_KEY, value: values.caller },
  ];
}
