// The flow card's state and actions: the flow as stored (GetFlow), the draft
// being edited, the engine's publish problems for it (CheckFlow, while
// typing), and Save draft, Publish, Unpublish, the Secret's generation and
// Rotate Secret. Every action goes through the admin RPCs; the engine checks
// roles again, so a refused action says why.
import { useEffect, useMemo, useState } from 'react';
import { useLocation, useNavigate } from 'react-router';
import { fromJson, toJson } from '@bufbuild/protobuf';
import { timestampDate } from '@bufbuild/protobuf/wkt';
import { keepPreviousData, skipToken } from '@tanstack/react-query';
import { useMutation, useQuery } from '@connectrpc/connect-query';
import {
  FlowAdminService,
  FlowProblem_Severity,
  type FlowProblem,
} from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { FlowSchema, type Flow, type FlowJson } from '../../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { useReadAgain } from '../rpc/read-again.ts';
import { messageOf } from '../rpc/transport.ts';
import { useDebounced } from '../ui/use-debounced.ts';
import { canonical, localProblems, newFlow, normalised, triggerOf } from './flow-draft.ts';
import type { ShownProblem } from './problems-list.tsx';
import { useRevealSecret } from './secret-dialog.tsx';

export interface Notice {
  kind: 'done' | 'problem';
  text: string;
}

export type PlacedProblem = ShownProblem & { segments: (string | number)[] };

export function useFlowCard(company: string, name: string | undefined) {
  const isNew = name === undefined;
  const readAgain = useReadAgain();
  const navigate = useNavigate();
  const location = useLocation();
  const reveal = useRevealSecret();
  const stored = useQuery(FlowAdminService.method.getFlow, isNew ? skipToken : { company, name });
  const loaded = useMemo(
    () => (stored.data?.definition ? (toJson(FlowSchema, stored.data.definition) as FlowJson) : undefined),
    [stored.data],
  );
  const [draft, setDraft] = useState<FlowJson | undefined>(isNew ? newFlow(company) : undefined);
  const [attempted, setAttempted] = useState(false);
  const [secretProblem, setSecretProblem] = useState<string>();
  const [notice, setNotice] = useState<Notice | undefined>((location.state as { notice?: Notice } | null)?.notice);
  const [checked, setChecked] = useState<FlowProblem[]>();
  // Bumped by a refused action: once the fields are marked, the first marked one takes the focus.
  const [focusRequest, setFocusRequest] = useState(0);
  useEffect(() => {
    if (focusRequest > 0) document.querySelector<HTMLElement>('main [aria-invalid="true"]')?.focus();
  }, [focusRequest]);
  useEffect(() => {
    if (loaded && draft === undefined) setDraft(loaded);
  }, [loaded]);

  // The engine's problems for the draft, asked for once typing pauses.
  const settled = useDebounced(draft, 400);
  const checkInput = useMemo(() => (settled ? messageOrUndefined(normalised(settled)) : undefined), [settled]);
  const live = useQuery(FlowAdminService.method.checkFlow, checkInput ? { flow: checkInput } : skipToken, {
    placeholderData: keepPreviousData,
    retry: false,
    staleTime: 0,
  });
  useEffect(() => setChecked(undefined), [settled]);

  const apply = useMutation(FlowAdminService.method.applyFlow);
  const check = useMutation(FlowAdminService.method.checkFlow);
  const rotate = useMutation(FlowAdminService.method.rotateSecret);
  const unpublish = useMutation(FlowAdminService.method.unpublishFlow);

  const local = useMemo(() => (draft ? localProblems(draft) : new Map<string, string>()), [draft]);
  const engineProblems = checked ?? live.data?.problems ?? [];
  // "required" is no news before anyone tried to save: it is shown once they have.
  const worthShowing = (problem: FlowProblem) => attempted || !/^required\b/.test(problem.message);
  const problems: PlacedProblem[] = [
    ...[...local].map(([fieldPath, message]) => ({
      fieldPath,
      message,
      severity: 'error' as const,
      segments: segmentsOf(fieldPath),
    })),
    ...engineProblems
      .filter(
        (problem) =>
          worthShowing(problem) && !(problem.severity === FlowProblem_Severity.ERROR && local.has(problem.fieldPath)),
      )
      .map((problem) => ({
        fieldPath: problem.fieldPath,
        message: problem.message,
        severity: problem.severity === FlowProblem_Severity.ERROR ? ('error' as const) : ('warning' as const),
        segments: problem.segments.map((segment) => segment.kind.value as string | number),
      })),
  ];
  const problemOf = (path: string) =>
    problems.find((problem) => problem.severity === 'error' && problem.fieldPath === path)?.message;
  const warningOf = (path: string) =>
    problems.find((problem) => problem.severity === 'warning' && problem.fieldPath === path)?.message;
  const stepHasProblem = (path: string) =>
    problems.some(
      (problem) =>
        problem.severity === 'error' && (problem.fieldPath === path || problem.fieldPath.startsWith(`${path}.`)),
    );

  const summary = stored.data?.flow;
  const hasSecret = !isNew && (summary?.hasSecret ?? false);
  const published = (summary?.publishedVersion ?? 0) > 0;
  // The flow's reads: the card, the flow list, the versions, the publish check.
  const refresh = () => readAgain([FlowAdminService]);

  const edit = (next: FlowJson) => {
    setDraft(next);
    setSecretProblem(undefined);
  };

  /** Save draft, or Publish: the draft as a new version (and, publishing, that version live). */
  async function save(publish: boolean): Promise<void> {
    if (!draft) return;
    setAttempted(true);
    setNotice(undefined);
    const flow = normalised(draft);
    if (!flow.name) return refuse('Give the flow an Activity (or a flow name) first: it is named after it.');
    const message = messageOrUndefined(flow);
    if (!message) return refuse('The flow does not read as a flow file: see the YAML tab for where.');
    if (publish) {
      if (isNew) {
        setSecretProblem('Generate the secret first: the configuration is invalid until one is set.');
        return refuse('The Secret is missing: generate it, then publish.');
      }
      if (local.size > 0) return refuse('Fix the marked fields first.');
      try {
        const { problems: found } = await check.mutateAsync({ flow: message });
        setChecked(found);
        const errors = found.filter((problem) => problem.severity === FlowProblem_Severity.ERROR);
        if (errors.length > 0)
          return refuse(
            `Not published: ${errors.length} problem${errors.length === 1 ? '' : 's'} to fix (marked at their fields).`,
          );
      } catch (error) {
        return refuse(`Not published: ${messageOf(error)}`);
      }
    }
    try {
      const answer = await apply.mutateAsync({ flow: message, publish });
      if (answer.secret) reveal(answer.secret, `Flow "${flow.name}" was created with this secret.`);
      const version = answer.flow?.latestVersion ?? 0;
      const text = publish
        ? `Published version ${answer.flow?.publishedVersion ?? version}.`
        : answer.newVersion
          ? `Saved draft version ${version}.`
          : 'Nothing changed since the last saved version.';
      const done: Notice = {
        kind: 'done',
        text: [text, ...answer.warnings.map((warning) => `Warning: ${warning}`)].join(' '),
      };
      await refresh();
      if (isNew)
        return void navigate(`/flows/${encodeURIComponent(company)}/${encodeURIComponent(flow.name!)}`, {
          replace: true,
          state: { notice: done },
        });
      setDraft(flow);
      setNotice(done);
    } catch (error) {
      refuse(`${publish ? 'Not published' : 'Not saved'}: ${messageOf(error)}`);
    }
  }

  function refuse(text: string): void {
    setNotice({ kind: 'problem', text });
    setFocusRequest((count) => count + 1);
  }

  async function rotateSecret(): Promise<void> {
    if (!name) return;
    try {
      const answer = await rotate.mutateAsync({ company, name });
      reveal(answer.secret, 'The secret was rotated: the old one stopped working.');
      await refresh();
    } catch (error) {
      refuse(`The secret was not rotated: ${messageOf(error)}`);
    }
  }

  async function unpublishFlow(): Promise<void> {
    if (!name) return;
    try {
      await unpublish.mutateAsync({ company, name });
      setNotice({ kind: 'done', text: 'Unpublished: the endpoint no longer reaches this flow.' });
      await refresh();
    } catch (error) {
      refuse(`Not unpublished: ${messageOf(error)}`);
    }
  }

  return {
    isNew,
    stored,
    draft,
    edit,
    dirty:
      draft !== undefined && (loaded === undefined || canonical(messageJson(normalised(draft))) !== canonical(loaded)),
    problems,
    problemOf,
    warningOf,
    stepHasProblem,
    secret: {
      hasSecret,
      rotatedAt: summary?.secretRotatedAt ? timestampDate(summary.secretRotatedAt) : undefined,
      problem: secretProblem,
    },
    activity: draft ? (triggerOf(draft).activity ?? '').trim().toLowerCase() : '',
    published,
    notice,
    busy: apply.isPending || check.isPending,
    rotating: rotate.isPending,
    save,
    rotateSecret,
    unpublishFlow,
  };
}

function messageOrUndefined(flow: FlowJson): Flow | undefined {
  try {
    return fromJson(FlowSchema, flow as never);
  } catch {
    return undefined;
  }
}

/** The draft as the engine would store it (defaults dropped), to compare with what it stored. */
function messageJson(flow: FlowJson): unknown {
  const message = messageOrUndefined(flow);
  return message ? toJson(FlowSchema, message) : flow;
}

function segmentsOf(fieldPath: string): (string | number)[] {
  return [...fieldPath.matchAll(/([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]/g)].map((match) => match[1] ?? Number(match[2]));
}
