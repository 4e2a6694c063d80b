// Loading, empty and failed states, the same on every page: announced to
// screen readers (status and alert roles), never a blank page.
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
