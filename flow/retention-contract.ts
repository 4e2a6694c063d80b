// What the engine (which keeps the retention schedule) and the retention workflow (which the
// schedule starts on the worker) agree on: the workflow's type, its input across continue-as-new
// and its result, which `flowhook retention show` reads back as the last purge. Engine-safe:
// types and constants only.

/** The retention workflow's type (the name under which workflows/index.ts exports it). */
export const RETENTION_WORKFLOW_TYPE = 'flowhookRetentionWorkflow';

/** A run's start (the schedule passes `{}`), or what a run carries into its next after continue-as-new. */
export interface RetentionRunInput {
  callbackCursor?: string;
  /** Rows deleted so far in this purge, per kind. */
  purged?: Record<string, number>;
  rounds?: number;
  /** ISO time the purge began. */
  startedAt?: string;
}

export interface RetentionRunResult {
  startedAt: string;
  finishedAt: string;
  /** Rounds (calls to the engine) the purge took. */
  rounds: number;
  /** Rows deleted, per kind (engine/domain/retention/retention-kinds.ts ROW_KINDS). */
  purged: Record<string, number>;
}

export type RetentionWorkflow = (input?: RetentionRunInput) => Promise<RetentionRunResult>;
