// The flow card: a new flow, or a stored one. Card (the trigger "When a
// webhook is received", the Webhook Call section, the steps and the Respond
// to Webhook step card), YAML (the whole flow in a code editor), Versions
// (drafts, and any two compared) and Try it (a call through the real
// endpoint). Save draft stores a version without publishing; Publish checks
// everything first and shows what stops it at the field it concerns.
import { lazy, Suspense, useState } from 'react';
import { useSearchParams } from 'react-router';
import { mayIn, useSession } from '../session/session.tsx';
import { TextField } from '../ui/field.tsx';
import { LoadProblem, Loading } from '../ui/states.tsx';
import { Tabs } from '../ui/tabs.tsx';
import { flatOutline, outline } from './flow-draft.ts';
import { ProblemsList, type ShownProblem } from './problems-list.tsx';
import { RotateSecretDialog } from './rotate-secret-dialog.tsx';
import { StepsSection } from './steps-section.tsx';
import { TriggerCard } from './trigger-card.tsx';
import { useFlowCard } from './use-flow-card.ts';
import { WebhookCallSection } from './webhook-call-section.tsx';

const YamlTab = lazy(() => import('../yaml/yaml-tab.tsx'));
const VersionsTab = lazy(() => import('../versions/versions-tab.tsx'));
const TryPanel = lazy(() => import('../try/try-panel.tsx'));

const TABS = [
  { id: 'card', label: 'Card' },
  { id: 'yaml', label: 'YAML' },
  { id: 'versions', label: 'Versions' },
  { id: 'try', label: 'Try it' },
];

/** The flow's own fields: its name (only while the flow is new, and checked) and what it does. */
const FLOW_FIELDS = [
  {
    key: 'name',
    label: 'Flow name',
    hint: 'Unique in the company. Left empty, the flow is named after its activity.',
    newOnly: true,
    checked: true,
  },
  {
    key: 'description',
    label: 'What the flow does',
    hint: 'For people: shown in the flow list.',
    newOnly: false,
    checked: false,
  },
] as const;

export default function FlowCardPage({ company, name }: { company: string; name?: string }) {
  const card = useFlowCard(company, name);
  const { person } = useSession();
  const [params, setParams] = useSearchParams();
  // Until someone picks a step, the first Respond to Webhook step's card is open (the one the spec describes).
  const [pickedStep, setSelectedStep] = useState<string | null>(null);
  const [confirmRotate, setConfirmRotate] = useState(false);
  const [reveal, setReveal] = useState<(string | number)[]>();
  const readOnly = !mayIn(person, company, 'editor');
  const tabs = card.isNew ? TABS.slice(0, 2) : TABS;
  const tab = tabs.some((item) => item.id === params.get('tab')) ? params.get('tab')! : 'card';
  const selectTab = (id: string) => setParams(id === 'card' ? {} : { tab: id }, { replace: true });

  if (card.stored.isError) return <LoadProblem what={`flow ${name}`} error={card.stored.error} />;
  if (!card.draft) return <Loading what={`flow ${name}`} />;
  const draft = card.draft;
  const summary = card.stored.data?.flow;
  const selectedStep = pickedStep ?? firstRespondStep(draft) ?? undefined;

  const show = (problem: ShownProblem & { segments: (string | number)[] }) => {
    const step = /^steps(?:\[\d+\](?:\.if\.(?:then|else))?)*\[\d+\]/.exec(problem.fieldPath)?.[0];
    const field = document.querySelector<HTMLElement>(`[data-field="${CSS.escape(problem.fieldPath)}"]`);
    if (tab === 'card' && field) return field.focus();
    if (step && /\.respond\.(description|statusCode|contentType|body)$/.test(problem.fieldPath)) {
      setSelectedStep(step);
      selectTab('card');
      return void setTimeout(
        () => document.querySelector<HTMLElement>(`[data-field="${CSS.escape(problem.fieldPath)}"]`)?.focus(),
        0,
      );
    }
    setReveal(problem.segments);
    selectTab('yaml');
  };

  return (
    <article aria-labelledby="flow-title" className="flow-card">
      <div className="page-head">
        <div>
          <h1 id="flow-title" tabIndex={-1}>
            {card.isNew ? 'New flow' : `Flow ${name}`}
          </h1>
          <p className="muted">
            {company}
            {summary
              ? ` · ${summary.publishedVersion > 0 ? `published v${summary.publishedVersion}` : 'not published'} · latest v${summary.latestVersion}`
              : ' · not saved yet'}
            {card.dirty ? ' · unsaved changes' : ''}
          </p>
        </div>
        {readOnly ? (
          <p className="muted">You can read this flow: changing it needs the editor role in {company}.</p>
        ) : (
          <div className="toolbar">
            <button type="button" className="secondary" disabled={card.busy} onClick={() => void card.save(false)}>
              Save draft
            </button>
            <button type="button" disabled={card.busy} onClick={() => void card.save(true)}>
              Publish
            </button>
            {card.published ? (
              // Not named "Unpublish": a button whose name contains "Publish" would answer to the Publish button's name too.
              <button
                type="button"
                className="secondary"
                title="Unpublish: the endpoint stops reaching this flow"
                onClick={() => void card.unpublishFlow()}
              >
                Take offline
              </button>
            ) : null}
          </div>
        )}
      </div>
      <div role="status" aria-live="polite" className={card.notice?.kind === 'done' ? 'notice done' : 'notice'}>
        {card.notice?.kind === 'done' ? card.notice.text : ''}
      </div>
      <div role="alert" className="notice problem">
        {card.notice?.kind === 'problem' ? card.notice.text : ''}
      </div>
      <Tabs label="Views of the flow" tabs={tabs} selected={tab} onSelect={selectTab}>
        {tab === 'card' ? (
          <>
            <ProblemsList problems={card.problems} onShow={show} />
            <div className="card-columns">
              <div>
                <section className="card" aria-labelledby="flow-section">
                  <h2 id="flow-section">Flow</h2>
                  {FLOW_FIELDS.filter((field) => card.isNew || !field.newOnly).map(({ key, label, hint, checked }) => (
                    <TextField
                      key={key}
                      label={label}
                      value={draft[key] ?? ''}
                      readOnly={readOnly}
                      data-field={key}
                      onValue={(value) => card.edit({ ...draft, [key]: value })}
                      problem={checked ? card.problemOf(key) : undefined}
                      hint={hint}
                    />
                  ))}
                </section>
                <TriggerCard
                  draft={draft}
                  onChange={card.edit}
                  problemOf={card.problemOf}
                  warningOf={card.warningOf}
                  readOnly={readOnly}
                  secret={{
                    ...card.secret,
                    onGenerate: () => void card.save(false),
                    onRotate: () => setConfirmRotate(true),
                  }}
                />
              </div>
              <div>
                <WebhookCallSection
                  call={card.stored.data?.webhookCall}
                  providerRoute={card.stored.data?.providerRoute}
                  published={card.published}
                  activity={summary?.activity ?? card.activity}
                />
                <StepsSection
                  draft={draft}
                  onChange={card.edit}
                  selected={selectedStep}
                  onSelect={(path) => setSelectedStep(path ?? null)}
                  problemOf={card.problemOf}
                  stepHasProblem={card.stepHasProblem}
                  readOnly={readOnly}
                  onOpenYaml={() => selectTab('yaml')}
                />
              </div>
            </div>
          </>
        ) : null}
        <Suspense fallback={<Loading what="the view" />}>
          {tab === 'yaml' ? (
            <YamlTab draft={draft} onChange={card.edit} problems={card.problems} reveal={reveal} readOnly={readOnly} />
          ) : null}
          {tab === 'versions' && name ? (
            <VersionsTab
              company={company}
              name={name}
              readOnly={readOnly}
              onLoad={(flow) => {
                card.edit(flow);
                selectTab('card');
              }}
            />
          ) : null}
          {tab === 'try' ? (
            <TryPanel company={company} activity={summary?.activity ?? card.activity} published={card.published} />
          ) : null}
        </Suspense>
      </Tabs>
      {confirmRotate ? (
        <RotateSecretDialog
          activity={summary?.activity ?? card.activity}
          busy={card.rotating}
          onCancel={() => setConfirmRotate(false)}
          onConfirm={() => {
            // Closed first: the new secret's dialog follows it, never opens on top of it.
            setConfirmRotate(false);
            void card.rotateSecret();
          }}
        />
      ) : null}
    </article>
  );
}

function firstRespondStep(flow: { steps?: Parameters<typeof outline>[0] }): string | undefined {
  return flatOutline(outline(flow.steps ?? [])).find((step) => step.kind === 'respond')?.path;
}
