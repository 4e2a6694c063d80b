// A caller's permission sets (a service user's or an application's), each
// with the company it holds in; a new one given here, and — where the engine
// can take one back (service users) — one revoked. Its outcome is said inside
// the dialog: the page behind is inert while it is open.
import { useState } from 'react';
import type { Reads } from '../rpc/read-again.ts';
import { ActionForm } from '../ui/action-buttons.tsx';
import { ModalDialog } from '../ui/modal-dialog.tsx';
import { SelectField } from '../ui/field.tsx';
import { usePageActions, type Outcome } from '../ui/page-actions.tsx';
import { CompanyScopeField, scopeOf, scopeText, useFirstCompany, type CompanyScope } from './company-scope.tsx';

export interface GrantsDialogProps {
  title: string;
  grants: { permissionSet: string; company: string }[];
  /** The sets this kind of caller can use (the engine refuses the others, saying why). */
  permissionSets: readonly string[];
  grant(scope: CompanyScope, permissionSet: string): Promise<Outcome>;
  revoke?(grant: { permissionSet: string; company: string }): Promise<Outcome>;
  /** The list that shows the grants, read again after each change. */
  changes: readonly Reads[];
  onClose(): void;
}

export function GrantsDialog({ title, grants, permissionSets, grant, revoke, changes, onClose }: GrantsDialogProps) {
  const actions = usePageActions(changes);
  const firstCompany = useFirstCompany();
  const [company, setCompany] = useState<string>();
  const [permissionSet, setPermissionSet] = useState(permissionSets[0]!);
  const chosenCompany = company ?? firstCompany;
  return (
    <ModalDialog title={title} onClose={onClose}>
      {grants.length === 0 ? (
        <p>No permission set yet: it cannot call any flow.</p>
      ) : (
        <ul className="grants">
          {grants.map((held) => (
            <li key={`${held.company}/${held.permissionSet}`}>
              <span>{scopeText(held.permissionSet, held.company)}</span>
              {revoke ? (
                <button type="button" className="secondary small" onClick={() => void actions.run(() => revoke(held))}>
                  Revoke {scopeText(held.permissionSet, held.company)}
                </button>
              ) : null}
            </li>
          ))}
        </ul>
      )}
      <ActionForm className="inline-form" actions={actions} run={() => grant(scopeOf(chosenCompany), permissionSet)}>
        <CompanyScopeField label="Company" value={chosenCompany} onChange={setCompany} />
        <SelectField label="Permission set" value={permissionSet} onValue={setPermissionSet}>
          {permissionSets.map((set) => (
            <option key={set}>{set}</option>
          ))}
        </SelectField>
        <button type="submit">Grant</button>
      </ActionForm>
      {actions.view}
      <div className="dialog-actions">
        <button type="button" className="secondary" data-autofocus onClick={onClose}>
          Close
        </button>
      </div>
    </ModalDialog>
  );
}
