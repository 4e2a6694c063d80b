// Create or replace an alert rule (AlertService.SetAlert): what fires it, how
// many in how long, and the alert channel it notifies — one of the company's
// slack, teams, webhook or smtp connections. The engine checks the rule; its
// refusal is shown as it says it (each names the option to fix).
import { useState, type FormEvent } from 'react';
import { useMutation, useQuery } from '@connectrpc/connect-query';
import { AlertCondition, AlertService, type Alert } from '../../../proto/gen/flowhook/engine/v1/alert_service_pb.js';
import {
  ConnectionAdminService,
  ConnectionType,
} from '../../../proto/gen/flowhook/engine/v1/connection_admin_service_pb.js';
import { FlowAdminService } from '../../../proto/gen/flowhook/engine/v1/flow_admin_service_pb.js';
import { messageOf } from '../rpc/transport.ts';
import { ModalDialog } from '../ui/modal-dialog.tsx';
import { SelectField, TextField } from '../ui/field.tsx';
import { CONDITIONS, windowText } from './alert-text.ts';

const CHANNELS = new Set([ConnectionType.SLACK, ConnectionType.TEAMS, ConnectionType.WEBHOOK, ConnectionType.SMTP]);
const FLOW_CONDITIONS = new Set([AlertCondition.EXECUTION_FAILED, AlertCondition.BACKLOG]);

interface Props {
  company: string;
  existing?: Alert;
  onDone(saved: Alert): void;
  onCancel(): void;
}

export function AlertForm({ company, existing, onDone, onCancel }: Props) {
  const rule = existing?.rule;
  const [name, setName] = useState(rule?.name ?? '');
  const [condition, setCondition] = useState(rule?.condition ?? AlertCondition.EXECUTION_FAILED);
  const [flow, setFlow] = useState(rule?.flow ?? '');
  const [reason, setReason] = useState(rule?.reason ?? '');
  const [threshold, setThreshold] = useState(String(rule?.threshold ?? 1));
  const [window, setWindow] = useState(rule ? windowText(rule.windowSeconds) : '5m');
  const [connection, setConnection] = useState(rule?.connection ?? '');
  const connections = useQuery(ConnectionAdminService.method.listConnections, { company });
  const flows = useQuery(FlowAdminService.method.listFlows, { company });
  const save = useMutation(AlertService.method.setAlert);
  const channels = (connections.data?.connections ?? []).filter((c) => CHANNELS.has(c.settings?.type ?? 0));
  const windowSeconds = secondsOf(window);

  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate(
      {
        rule: {
          company,
          name: name.trim(),
          condition,
          flow: FLOW_CONDITIONS.has(condition) ? flow : '',
          reason: condition === AlertCondition.CALLS_REFUSED ? reason.trim() : '',
          threshold: condition === AlertCondition.NO_WORKER ? 0 : Number(threshold) || 0,
          windowSeconds: windowSeconds ?? -1,
          connection,
        },
      },
      { onSuccess: (answer) => onDone(answer.alert!) },
    );
  };

  return (
    <ModalDialog title={existing ? `Edit alert ${existing.rule?.name}` : 'New alert'} onClose={onCancel}>
      <form onSubmit={submit} noValidate autoComplete="off">
        <TextField
          label="Name"
          readOnly={existing !== undefined}
          data-autofocus
          value={name}
          onChange={(event) => setName(event.target.value)}
        />
        <SelectField
          label="When"
          value={String(condition)}
          onChange={(event) => setCondition(Number(event.target.value) as AlertCondition)}
        >
          {CONDITIONS.map((option) => (
            <option key={option.value} value={String(option.value)}>
              {option.label}
            </option>
          ))}
        </SelectField>
        {FLOW_CONDITIONS.has(condition) ? (
          <SelectField label="Flow" value={flow} onChange={(event) => setFlow(event.target.value)}>
            <option value="">Every flow</option>
            {(flows.data?.flows ?? []).map((option) => (
              <option key={option.name} value={option.name}>
                {option.name}
              </option>
            ))}
          </SelectField>
        ) : null}
        {condition === AlertCondition.CALLS_REFUSED ? (
          <TextField
            label="Refusal reason"
            hint="Only calls refused for this reason, e.g. secret_mismatch or rate_limited; empty for any."
            value={reason}
            onChange={(event) => setReason(event.target.value)}
          />
        ) : null}
        {condition === AlertCondition.NO_WORKER ? null : (
          <TextField
            label="Threshold"
            type="number"
            min={1}
            hint="It fires at this many in the window."
            value={threshold}
            onChange={(event) => setThreshold(event.target.value)}
          />
        )}
        <TextField
          label="Window"
          hint="How far back it counts: 90s, 5m, 1h (from 10s to 7d)."
          problem={windowSeconds === undefined ? 'A number and s, m, h or d, e.g. 5m.' : undefined}
          value={window}
          onChange={(event) => setWindow(event.target.value)}
        />
        <SelectField
          label="Connection"
          hint="The Slack, Teams, webhook or e-mail connection notified (Connections page)."
          value={connection}
          onChange={(event) => setConnection(event.target.value)}
        >
          <option value="">Choose a connection</option>
          {channels.map((option) => (
            <option key={option.name} value={option.name}>
              {option.name}
            </option>
          ))}
        </SelectField>
        {save.isError ? (
          <p role="alert" className="problem">
            Not saved: {messageOf(save.error).split('\n')[0]}
          </p>
        ) : null}
        <div className="dialog-actions">
          <button type="button" className="secondary" onClick={onCancel}>
            Cancel
          </button>
          <button type="submit" disabled={save.isPending || windowSeconds === undefined}>
            {existing ? 'Save alert' : 'Create alert'}
          </button>
        </div>
      </form>
    </ModalDialog>
  );
}

/** `90s`, `5m`, `1h`, `2d` → seconds; undefined when it is none of those. */
function secondsOf(text: string): number | undefined {
  const match = /^\s*(\d+)\s*([smhd])\s*$/i.exec(text);
  if (!match) return undefined;
  return Number(match[1]) * { s: 1, m: 60, h: 3600, d: 86400 }[match[2]!.toLowerCase() as 's' | 'm' | 'h' | 'd'];
}
