// Text from flow files and callers (descriptions, names) placed into Markdown
// the Temporal UI renders: escaped so it cannot add links, emphasis or HTML,
// on one line and bounded. Shared by the engine (execution details) and the
// workflow (current details).
export function markdownText(text: string, maxLength: number): string {
  return text
    .replace(/[\\`*_[\]<>#|]/g, (character) => `\\${character}`)
    .replace(/\s+/g, ' ')
    .slice(0, maxLength);
}
