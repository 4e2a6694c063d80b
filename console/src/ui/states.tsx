// Loading, empty and failed states, the same on every page: announced to
// screen readers (status and alert roles), never a blank page.
import type { ReactNode } from 'react';
import { messageOf } from '../rpc/transport.ts';

export function Loading({ what }: { what: string }) {
  return (
    <p role="status" className="loading">
      Loading {what}…
    </p>
  );
}

export function LoadProblem({ what, error }: { what: string; error: unknown }) {
  return (
    <p role="alert" className="problem">
      Could not load {what}: {messageOf(error)}
    </p>
  );
}

/** What the states need of a read (connect-query's useQuery result). */
export interface Read<Data> {
  data: Data | undefined;
  error: unknown;
  isPending: boolean;
  isError: boolean;
  fetchStatus: string;
}

/**
 * A read in each of its states: loading (not a read that is not asked for yet:
 * a filter still invalid), the engine's reason it failed, and what `children`
 * make of the answer — also beside a later failure, which keeps the last answer.
 */
export function Loaded<Data>({
  read,
  what,
  children,
}: {
  read: Read<Data>;
  what: string;
  children(data: Data): ReactNode;
}) {
  return (
    <>
      {read.isPending && read.fetchStatus !== 'idle' ? <Loading what={what} /> : null}
      {read.isError ? <LoadProblem what={what} error={read.error} /> : null}
      {read.data ? children(read.data) : null}
    </>
  );
}
