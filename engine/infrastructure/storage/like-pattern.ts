// Case-insensitive lookups of names users typed (`$ilike`) must treat `_` and
// `%` in those names as letters, not as ILIKE wildcards.
export function escapeLikePattern(text: string): string {
  return text.replace(/[\\%_]/g, (character) => `\\${character}`);
}
