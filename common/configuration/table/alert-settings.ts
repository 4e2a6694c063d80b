// How often alert rules are evaluated, and how long one alert message may take to send.
import { setting, settingsGroup } from '../setting.ts';
import { duration } from '../values/duration-value.ts';

export const ALERT_SETTINGS = settingsGroup('Alerts', {
  FLOWHOOK_ALERT_EVALUATION_INTERVAL: setting({
    type: duration({ min: 1000, max: 3_600_000 }),
    default: 30_000,
    processes: ['engine'],
    meaning:
      "how often each alert rule's workflow asks the engine to count what the rule watches (and how often the engines look for a worker for `no-worker` rules)",
    why: 'a rule is one Temporal timer and one count per interval; an hour is the longest a firing alert may go unsaid',
  }),
  FLOWHOOK_ALERT_SEND_TIMEOUT: setting({
    type: duration({ min: 1000, max: 120_000 }),
    default: 10_000,
    processes: ['engine'],
    meaning:
      'how long the engine waits for an alert channel (Slack, Teams, a webhook, an SMTP server) to take one message',
    why: 'a send that hangs holds an alert workflow activity until Temporal retries it',
  }),
});
