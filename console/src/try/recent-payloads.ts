// The payloads tried on a flow lately, for this browser session only
// (sessionStorage: gone when the tab closes), newest first. Never secrets.
const MAX = 5;

function keyOf(company: string, activity: string): string {
  return `flowhook.try.${company}/${activity}`;
}

export function recentPayloads(company: string, activity: string): string[] {
  try {
    const stored: unknown = JSON.parse(sessionStorage.getItem(keyOf(company, activity)) ?? '[]');
    return Array.isArray(stored) ? stored.filter((item): item is string => typeof item === 'string') : [];
  } catch {
    return [];
  }
}

export function rememberPayload(company: string, activity: string, payload: string): string[] {
  const list = [payload, ...recentPayloads(company, activity).filter((item) => item !== payload)].slice(0, MAX);
  try {
    sessionStorage.setItem(keyOf(company, activity), JSON.stringify(list));
  } catch {
    // storage full or off: the list lives as long as the page
  }
  return list;
}
