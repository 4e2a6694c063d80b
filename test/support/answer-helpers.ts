// Fetching a call's late answer over real HTTP (facade answer-route.ts), as a
// caller would after its sync call got the default response.
import { INSTANCE } from './stack.ts';

export interface FetchedAnswer {
  status: number;
  headers: Headers;
  text: string;
  /** The envelope's `value`, parsed, when the answer is there (200). */
  value?: { statusCode: number; contentType: string; body: string };
  ms: number;
}

/** The OData function URL; a quote in the id is doubled, the whole literal percent-encoded. */
export function answerUrl(facadeUrl: string, company: string, executionId: string, wait?: number | string): string {
  const literal = encodeURIComponent(`'${executionId.replaceAll("'", "''")}'`);
  const query = `company=${encodeURIComponent(company)}${wait === undefined ? '' : `&wait=${wait}`}`;
  return `${facadeUrl}/${INSTANCE}/ODataV4/flowWebhook_Answer(executionId=${literal})?${query}`;
}

export async function fetchAnswer(
  facadeUrl: string,
  call: { company: string; executionId: string; auth?: string; wait?: number | string },
): Promise<FetchedAnswer> {
  const started = Date.now();
  const response = await fetch(answerUrl(facadeUrl, call.company, call.executionId, call.wait), {
    headers: call.auth ? { authorization: call.auth } : {},
  });
  const text = await response.text();
  const fetched: FetchedAnswer = { status: response.status, headers: response.headers, text, ms: Date.now() - started };
  if (response.status === 200) fetched.value = JSON.parse(JSON.parse(text).value);
  return fetched;
}
