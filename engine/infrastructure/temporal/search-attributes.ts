// Search attributes that let operators find executions in the Temporal UI by
// company, activity, flow and its version, response mode, caller (`user:<name>`,
// `app:<clientId>`, `account:<name>`) and outcome (flow/search-attribute-keys.ts). They must be registered on the namespace; the engine
// registers missing ones at start where the server allows it (dev server,
// self-hosted) and otherwise runs without them.
import type { SearchAttributePair } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import protos from '@temporalio/proto';
import {
  COMPANY_KEY,
  FLOW_ACTIVITY_KEY,
  FLOW_CALLER_KEY,
  FLOW_KEY,
  FLOW_NAME_KEY,
  FLOW_OUTCOME_KEY,
  FLOW_VERSION_KEY,
  RESPONSE_MODE_KEY,
  SEARCH_ATTRIBUTES,
} from '../../../flow/search-attribute-keys.ts';

export * from '../../../flow/search-attribute-keys.ts';

/** Returns true when all attributes exist (or were added) on the namespace. */
export async function ensureSearchAttributes(client: Client, namespace: string): Promise<boolean> {
  const operator = client.connection.operatorService;
  const existing = await operator.listSearchAttributes({ namespace });
  const custom = existing.customAttributes ?? {};
  const missing = Object.keys(SEARCH_ATTRIBUTES).filter((name) => !(name in custom));
  if (missing.length === 0) return true;
  const { INDEXED_VALUE_TYPE_KEYWORD, INDEXED_VALUE_TYPE_KEYWORD_LIST, INDEXED_VALUE_TYPE_INT } =
    protos.temporal.api.enums.v1.IndexedValueType;
  const types = {
    Keyword: INDEXED_VALUE_TYPE_KEYWORD,
    KeywordList: INDEXED_VALUE_TYPE_KEYWORD_LIST,
    Int: INDEXED_VALUE_TYPE_INT,
  };
  const typeOf = (name: string) => types[SEARCH_ATTRIBUTES[name]!];
  try {
    await operator.addSearchAttributes({
      namespace,
      searchAttributes: Object.fromEntries(missing.map((name) => [name, typeOf(name)])),
    });
  } catch (error) {
    // Temporal Cloud and locked-down clusters refuse this: say exactly what an operator must run.
    throw new Error(
      `search attributes ${missing.join(', ')} are missing and could not be added (${error instanceof Error ? error.message : String(error)}); create them with: ${createCommands(namespace, missing)}`,
    );
  }
  return true;
}

/** The `temporal operator search-attribute create` commands for these attributes, joined by ` && `. */
export function createCommands(namespace: string, names: readonly string[]): string {
  return names
    .map(
      (name) =>
        `temporal operator search-attribute create --namespace ${namespace} --name ${name} --type ${SEARCH_ATTRIBUTES[name]}`,
    )
    .join(' && ');
}

export function executionSearchAttributes(values: {
  company: string;
  activity: string;
  flowName: string;
  flowVersion: number;
  responseMode: string;
  caller: string;
  keys?: readonly string[];
}): SearchAttributePair[] {
  return [
    { key: COMPANY_KEY, value: values.company },
    { key: FLOW_ACTIVITY_KEY, value: values.activity },
    { key: FLOW_NAME_KEY, value: values.flowName },
    { key: FLOW_VERSION_KEY, value: values.flowVersion },
    { key: RESPONSE_MODE_KEY, value: values.responseMode },
    { key: FLOW_CALLER_KEY, value: values.caller },
    // Instant return has no window to close: its outcome is known at start. Sync executions upsert theirs.
    ...(values.responseMode === 'WAIT_FOR_RESPONSE_STEP' ? [] : [{ key: FLOW_OUTCOME_KEY, value: 'instant' }]),
    // Flow control's keys, as labelled (never payload data of doNotLogPayload flows): `flowhook execution list --key`.
    ...(values.keys && values.keys.length > 0 ? [{ key: FLOW_KEY, value: [...values.keys] }] : []),
  ];
}
