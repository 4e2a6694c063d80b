// The alert settings as the engine reads them: how often rules are evaluated,
// how long a send may take, and the egress policy alert messages go out under
// — FLOWHOOK_EGRESS_ALLOW, as for the worker's flows, with flowhook's own
// ports shut unless a host:port entry names them (the ports this process
// knows of, and the usual ones).
import type { Settings } from '../../../common/configuration/configuration-table.ts';
import { LOCAL_CONSOLE_PORT } from '../../../common/configuration/table/console-settings.ts';
import { EGRESS_ALLOW_VARIABLE, parseEgressRules } from '../../../flow/egress-policy.ts';
import type { AlertSettings } from './alert-deps.ts';

export function readAlertSettings(
  settings: Settings<'engine'>,
): Pick<AlertSettings, 'evaluationIntervalMs' | 'sendTimeoutMs' | 'egress'> {
  return Object.freeze({
    evaluationIntervalMs: settings.FLOWHOOK_ALERT_EVALUATION_INTERVAL,
    sendTimeoutMs: settings.FLOWHOOK_ALERT_SEND_TIMEOUT,
    egress: Object.freeze({
      allow: parseEgressRules(settings.FLOWHOOK_EGRESS_ALLOW ?? '', EGRESS_ALLOW_VARIABLE),
      ownPorts: ownPorts(settings),
    }),
  });
}

function ownPorts(settings: Settings<'engine'>): Map<number, string> {
  const ports = new Map<number, string>([
    [7048, 'facade'],
    [7049, 'engine'],
    [7050, 'embedded PostgreSQL'],
    [7051, 'engine metrics'],
    [7052, 'worker metrics'],
    [7053, 'facade metrics'],
    [7233, 'Temporal'],
    [8233, 'Temporal Web UI'],
    [LOCAL_CONSOLE_PORT, 'console'],
  ]);
  const add = (port: unknown, name: string) => {
    if (typeof port === 'number' && port > 0 && port < 65536) ports.set(port, name);
  };
  const portOfUrl = (raw: string | undefined) => {
    try {
      return raw ? Number(new URL(raw.includes('://') ? raw : `tcp://${raw}`).port) || undefined : undefined;
    } catch {
      return undefined;
    }
  };
  add(settings.FLOWHOOK_ENGINE_PORT, 'engine');
  add(settings.FLOWHOOK_FACADE_PORT, 'facade');
  add(settings.FLOWHOOK_CONSOLE_PORT, 'console');
  add(settings.FLOWHOOK_CODEC_PORT, 'codec server');
  add(settings.FLOWHOOK_ENGINE_METRICS_PORT, 'engine metrics');
  add(portOfUrl(settings.TEMPORAL_ADDRESS), 'Temporal');
  add(portOfUrl(settings.FLOWHOOK_DATABASE_URL) ?? (settings.FLOWHOOK_DATABASE_URL ? 5432 : undefined), 'PostgreSQL');
  return ports;
}
