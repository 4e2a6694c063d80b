// The search attributes every execution carries, shared by the engine (which
// sets them at start) and the workflow (which upserts the outcome when the
// sync window closes). Only @temporalio/common here: the workflow sandbox
// imports this file.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

export const COMPANY_KEY = defineSearchAttributeKey('Company', SearchAttributeType.KEYWORD);
export const FLOW_ACTIVITY_KEY = defineSearchAttributeKey('FlowActivity', SearchAttributeType.KEYWORD);
export const FLOW_NAME_KEY = defineSearchAttributeKey('FlowName', SearchAttributeType.KEYWORD);
export const RESPONSE_MODE_KEY = defineSearchAttributeKey('ResponseMode', SearchAttributeType.KEYWORD);
export const FLOW_CALLER_KEY = defineSearchAttributeKey('FlowCaller', SearchAttributeType.KEYWORD);
export const FLOW_VERSION_KEY = defineSearchAttributeKey('FlowVersion', SearchAttributeType.INT);
/** responded | sync timeout | flow ended | instant | failed — how the caller's window closed. */
export const FLOW_OUTCOME_KEY = defineSearchAttributeKey('FlowOutcome', SearchAttributeType.KEYWORD);
/** The execution a re-run repeats (set by re-runs, a later release). */
export const RERUN_OF_KEY = defineSearchAttributeKey('RerunOf', SearchAttributeType.KEYWORD);
/** Flow control: the keys the execution's controls computed (concurrency, throttle, debounce, batch), as the engine labels them. */
export const FLOW_KEY = defineSearchAttributeKey('FlowKey', SearchAttributeType.KEYWORD_LIST);
/** Flow control: how long the execution waited at its gates (pause, throttle, concurrency) before its steps ran, in ms. */
export const FLOW_WAIT_KEY = defineSearchAttributeKey('FlowWaitMs', SearchAttributeType.INT);

/** Name → type, as `temporal operator search-attribute create --name N --type T` (and start-dev) want them. */
export const SEARCH_ATTRIBUTES: Record<string, 'Keyword' | 'KeywordList' | 'Int'> = {
  Company: 'Keyword',
  FlowActivity: 'Keyword',
  FlowName: 'Keyword',
  ResponseMode: 'Keyword',
  FlowCaller: 'Keyword',
  FlowVersion: 'Int',
  FlowOutcome: 'Keyword',
  RerunOf: 'Keyword',
  FlowKey: 'KeywordList',
  FlowWaitMs: 'Int',
};

export const FLOW_OUTCOMES = ['responded', 'sync timeout', 'flow ended', 'instant', 'failed'] as const;
export type FlowOutcomeLabel = (typeof FLOW_OUTCOMES)[number];
