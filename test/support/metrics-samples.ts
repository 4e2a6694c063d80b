// Reading Prometheus text as an operator's scraper does: one GET of /metrics,
// and the value of one sample by name and exact labels.

export async function scrape(url: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${url}: ${response.status} ${text}`);
  return text;
}

/** The value of the one sample with exactly these labels (0 when there is none yet). */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (
      Object.keys(found).length === Object.keys(labels).length &&
      Object.entries(labels).every(([key, value]) => found[key] === value)
    )
      return Number(match[3]);
  }
  return 0;
}

/** All samples of a metric added up, whatever their labels. */
export function total(text: string, name: string): number {
  let sum = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{.*\})? (\S+)$/.exec(line);
    if (match && match[1] === name) sum += Number(match[2]);
  }
  return sum;
}
