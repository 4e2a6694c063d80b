// Re-running what the list's filter matches: a dry run first (RerunExecutions
// with dryRun: what would be re-run, counted by the engine), a confirmation
// naming the number, then one RerunExecution per match, in the order the dry
// run listed them, so the page can show how far it got and stop on request.
// Only the executions the dry run listed are re-run: re-runs that start
// meanwhile never match their own bulk re-run. Matches that do not log their
// payload re-run on their own version unless the person is an admin of the
// company (rerun-button.tsx says why); the dialog says so before it starts.
import { useRef, useState } from 'react';
import { Link } from 'react-router';
import { useMutation } from '@connectrpc/connect-query';
import { ExecutionService, type ExecutionSummary } from '../../../proto/gen/flowhook/engine/v1/execution_service_pb.js';
import { useReadAgain } from '../rpc/read-again.ts';
import { messageOf } from '../rpc/transport.ts';
import { mayIn, useSession } from '../session/session.tsx';
import { ModalDialog } from '../ui/modal-dialog.tsx';
import { BULK_MAX, rerunRequest, type ExecutionFilter } from './execution-filter.ts';

interface Progress {
  total: number;
  started: { original: string; rerun: string }[];
  failed: { original: string; reason: string }[];
  running: boolean;
  stopped: boolean;
}

export function BulkRerun({ filter, disabled }: { filter: ExecutionFilter; disabled: boolean }) {
  const readAgain = useReadAgain();
  const { person } = useSession();
  const admin = mayIn(person, filter.company, 'admin');
  const dryRun = useMutation(ExecutionService.method.rerunExecutions);
  const rerun = useMutation(ExecutionService.method.rerunExecution);
  const [open, setOpen] = useState(false);
  const [sameVersion, setSameVersion] = useState(false);
  const [progress, setProgress] = useState<Progress>();
  const stop = useRef(false);
  const onlyRunning = filter.statuses.length > 0 && filter.statuses.every((status) => status === 'RUNNING');

  const check = () => {
    setProgress(undefined);
    setOpen(true);
    dryRun.mutate(rerunRequest(filter, true));
  };
  const run = async (matches: ExecutionSummary[]) => {
    stop.current = false;
    const state: Progress = { total: matches.length, started: [], failed: [], running: true, stopped: false };
    setProgress({ ...state });
    for (const match of matches) {
      if (stop.current) {
        state.stopped = true;
        break;
      }
      try {
        const ownVersion = sameVersion || (match.payloadWithheld && !admin);
        const answer = await rerun.mutateAsync({
          executionId: match.executionId,
          company: filter.company,
          sameVersion: ownVersion,
        });
        state.started.push({ original: match.executionId, rerun: answer.rerun?.executionId ?? '' });
      } catch (error) {
        state.failed.push({ original: match.executionId, reason: messageOf(error) });
      }
      setProgress({ ...state });
    }
    state.running = false;
    setProgress({ ...state });
    // The list, the overview's figures, and the originals' pages (they list their re-runs).
    await readAgain([ExecutionService]);
  };
  const close = () => {
    if (progress?.running) return;
    setOpen(false);
    dryRun.reset();
  };

  const matched = dryRun.data?.matched ?? 0;
  const matches = dryRun.data?.executions ?? [];
  const pinned = sameVersion || admin ? 0 : matches.filter((match) => match.payloadWithheld).length;
  return (
    <>
      <button
        type="button"
        className="secondary"
        onClick={check}
        disabled={disabled || onlyRunning}
        title={onlyRunning ? 'Running executions cannot be re-run' : undefined}
      >
        Re-run matching executions…
      </button>
      {open ? (
        <ModalDialog
          title={
            progress
              ? `Re-running ${progress.total} execution${progress.total === 1 ? '' : 's'}`
              : 'Re-run matching executions'
          }
          onClose={close}
        >
          {dryRun.isPending ? <p role="status">Counting what the filter matches (a dry run: nothing starts)…</p> : null}
          {dryRun.isError ? (
            <p role="alert" className="problem">
              {messageOf(dryRun.error)}
            </p>
          ) : null}
          {dryRun.data && !progress ? (
            <>
              <p role="status">
                {matched === 0
                  ? 'No closed execution matches the filter: nothing to re-run.'
                  : matched > BULK_MAX
                    ? `More than ${BULK_MAX} executions match: narrow the filter (a time range) to re-run them.`
                    : `${matched} closed execution${matched === 1 ? '' : 's'} match${matched === 1 ? 'es' : ''} the filter (dry run: nothing started yet).`}
              </p>
              {matched > 0 && matched <= BULK_MAX ? (
                <>
                  <p>
                    Each is started again with its original payload and caller, as a new execution, on{' '}
                    {sameVersion ? 'its own flow version' : 'the flow version published now'}. Nobody waits for their
                    answers.
                  </p>
                  <label className="inline-check">
                    <input
                      type="checkbox"
                      checked={sameVersion}
                      onChange={(event) => setSameVersion(event.target.checked)}
                    />{' '}
                    Run each on its original flow version
                  </label>
                  {pinned > 0 ? (
                    <p className="muted">
                      {pinned} of them do{pinned === 1 ? 'es' : ''} not log {pinned === 1 ? 'its' : 'their'} payload:{' '}
                      {pinned === 1 ? 'it re-runs' : 'they re-run'} on {pinned === 1 ? 'its' : 'their'} own version, as
                      only admins of {filter.company} may hand such a payload to another version.
                    </p>
                  ) : null}
                </>
              ) : null}
            </>
          ) : null}
          {progress ? <RerunProgress progress={progress} /> : null}
          <div className="dialog-actions">
            {progress?.running ? (
              <button type="button" className="secondary" onClick={() => (stop.current = true)}>
                Stop
              </button>
            ) : (
              <button type="button" className="secondary" data-autofocus onClick={close}>
                {progress ? 'Close' : 'Cancel'}
              </button>
            )}
            {dryRun.data && !progress && matched > 0 && matched <= BULK_MAX ? (
              <button type="button" onClick={() => void run(matches)}>
                Re-run {matched} execution{matched === 1 ? '' : 's'}
              </button>
            ) : null}
          </div>
        </ModalDialog>
      ) : null}
    </>
  );
}

function RerunProgress({ progress }: { progress: Progress }) {
  const done = progress.started.length + progress.failed.length;
  return (
    <div className="rerun-progress">
      <label>
        Progress
        <progress max={progress.total} value={done} aria-valuetext={`${done} of ${progress.total}`} />
      </label>
      <p role="status">
        {progress.running
          ? `${done} of ${progress.total} done…`
          : `${progress.started.length} of ${progress.total} started${progress.failed.length ? `, ${progress.failed.length} not started` : ''}${progress.stopped ? ' (stopped)' : ''}.`}
      </p>
      {progress.started.length > 0 ? (
        <details open={!progress.running}>
          <summary>Started re-runs</summary>
          <ul className="rerun-list">
            {progress.started.map((item) => (
              <li key={item.rerun}>
                <Link to={`/executions/${encodeURIComponent(item.rerun)}`}>{item.rerun}</Link>{' '}
                <span className="muted">re-runs {item.original}</span>
              </li>
            ))}
          </ul>
        </details>
      ) : null}
      {progress.failed.length > 0 ? (
        <ul className="rerun-list problem" aria-label="Not started">
          {progress.failed.map((item) => (
            <li key={item.original}>
              {item.original}: {item.reason}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
