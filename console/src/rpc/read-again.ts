// After a change, the engine's answers it made stale are read again — those
// and no others. A change names what it affects, a service's reads or one
// method's, and TanStack Query invalidates the cached answers under that
// connect-query key, whatever their input or transport: the shown ones are
// read at once, the others when next shown. No change names the session
// (ConsoleService): a change alters lists, not who is signed in.
import type { DescMethodUnary, DescService } from '@bufbuild/protobuf';
import { createConnectQueryKey } from '@connectrpc/connect-query';
import { useQueryClient } from '@tanstack/react-query';

/** What a change makes stale: every read of a service, or every read of one method. */
export type Reads = DescService | DescMethodUnary;

export function useReadAgain(): (reads: readonly Reads[]) => Promise<void> {
  const queryClient = useQueryClient();
  return async (reads) => {
    await Promise.all(reads.map((read) => queryClient.invalidateQueries({ queryKey: keyOf(read) })));
  };
}

function keyOf(read: Reads) {
  // Two calls for the two overloads (a service's key has no method name); no input: every request matches.
  return read.kind === 'service'
    ? createConnectQueryKey({ schema: read, cardinality: undefined })
    : createConnectQueryKey({ schema: read, cardinality: undefined });
}
