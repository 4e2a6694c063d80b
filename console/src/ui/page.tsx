// The frame of a console page and of its sections. A page is a section named
// by its heading: the h1 that takes the focus when the page opens, the page's
// own buttons beside it. A section of an admin page (people, company settings)
// is named by its h2 and says in a line what it lists.
import type { ReactNode } from 'react';
import type { PageActions } from './page-actions.tsx';

export function Page({
  id,
  title,
  actions,
  children,
}: {
  id: string;
  title: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={id}>
      <div className="page-head">
        <h1 id={id} tabIndex={-1}>
          {title}
        </h1>
        {actions}
      </div>
      {children}
    </section>
  );
}

export function PageSection({
  id,
  title,
  intro,
  children,
}: {
  id: string;
  title: string;
  intro: ReactNode;
  children: ReactNode;
}) {
  return (
    <section aria-labelledby={id} className="people-section">
      <h2 id={id}>{title}</h2>
      <p className="muted">{intro}</p>
      {children}
    </section>
  );
}

/** What a section of an admin page is given: the page's actions, and whether the person may change what it lists. */
export interface SectionProps {
  actions: PageActions;
  mayChange: boolean;
}

/** A section about one company (its settings). */
export interface CompanySectionProps extends SectionProps {
  company: string;
}
