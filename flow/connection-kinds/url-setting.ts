// What a URL setting of a connection must be (its base URL, a token endpoint):
// absolute http(s), with no credentials in it (they belong in the secret).

/** Problems with the URL in setting `field`; a base URL may not carry a query or fragment either (paths are appended to it). */
export function urlSettingProblems(raw: string, field: string, isBase: boolean): string[] {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return [`${field}: "${raw}" is not an absolute URL`];
  }
  const problems: string[] = [];
  if (url.protocol !== 'https:' && url.protocol !== 'http:') problems.push(`${field}: must be http or https`);
  if (url.username || url.password) problems.push(`${field}: must not contain credentials (they belong in the secret)`);
  if (isBase && (url.search || url.hash)) problems.push(`${field}: must not have a query or fragment`);
  return problems;
}
