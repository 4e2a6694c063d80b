// `https://idp.example/tenant///` → `https://idp.example/tenant`. A loop, not
// /\/+$/: a regular expression retries the run of slashes from every start, so
// text of many slashes not at the end (a token's `iss` is the caller's text)
// would take time quadratic in its length.

export function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x2f) end--;
  return end === text.length ? text : text.slice(0, end);
}
