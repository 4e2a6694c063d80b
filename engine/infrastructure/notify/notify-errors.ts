// Why an alert message did not reach its channel. The message names the
// channel's host and what went wrong — never a secret (a Slack or Teams
// webhook URL is one, so only its host is ever shown).

export class NotifyFailed extends Error {
  /** Trying again later may help (a network error, a 5xx, a 429, a timeout). */
  readonly retryable: boolean;

  constructor(message: string, retryable: boolean) {
    super(message);
    this.name = 'NotifyFailed';
    this.retryable = retryable;
  }
}
