// What the alert channels (Slack, Teams, the signed webhook, SMTP) share: they
// are connections the engine sends alert messages through, never credentials
// of an httpRequest step, so authenticating a request with one fails the step
// at once, naming the connection.
import { AuthenticationFailure } from './connection-kind.ts';

/** For an alert channel's `authenticate`: an httpRequest step named it. */
export function notForRequests(kind: string) {
  return async ({ name }: { name: string }): Promise<never> => {
    throw new AuthenticationFailure(
      `connection "${name}" is a ${kind} alert channel: httpRequest steps cannot use it (name a request connection such as bearer or api-key)`,
      'ConnectionInvalid',
      false,
    );
  };
}

/** Problems with a webhook URL kept as the secret (Slack's, Teams'): never quoted, since it is the secret. */
export function webhookUrlProblems(secret: string, what: string): string[] {
  let url: URL;
  try {
    url = new URL(secret);
  } catch {
    return [`secret: the ${what} is not an absolute URL`];
  }
  const problems: string[] = [];
  if (url.protocol !== 'https:' && url.protocol !== 'http:') problems.push(`secret: the ${what} must be http or https`);
  if (url.username || url.password) problems.push(`secret: the ${what} must not contain user credentials`);
  return problems;
}
