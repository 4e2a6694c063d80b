// An alert message as the engine composed it (engine/domain/alerts/), before
// any channel's format: what every sender here turns into its own payload.

export type AlertEvent = 'alert.firing' | 'alert.resolved' | 'alert.test';

export interface AlertMessage {
  /** Stable per incident and state: the webhook-id, the e-mail's Message-ID; a repeat keeps it. */
  id: string;
  event: AlertEvent;
  /** One line: "Firing: 3 failed executions of partner-sync in 5 min". */
  title: string;
  /** A sentence or two, plain text. */
  text: string;
  /** The console page behind it, when the engine knows the console's address. */
  link?: { label: string; url: string };
  at: Date;
  /** What a program receiving the signed webhook reads. */
  data: Record<string, unknown>;
}
