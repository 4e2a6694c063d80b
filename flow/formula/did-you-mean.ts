// "Did you mean …?" for names a flow author mistyped. Pure, so publish-time
// checks give the same message for the same flow every time.

/**
 * ` (did you mean X?)` for the closest candidate, or '' when none is close.
 * Case is ignored when measuring (`trigger` → `Trigger`); a longer name
 * tolerates more edits, at most three, so short names do not match everything.
 * On a tie the earlier candidate wins: callers list the likelier ones first.
 */
export function didYouMean(wrong: string, candidates: Iterable<string>, spell: (candidate: string) => string): string {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(wrong.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  const tolerated = Math.max(1, Math.min(3, Math.floor(wrong.length / 3)));
  return best !== undefined && bestDistance <= tolerated ? ` (did you mean ${spell(best)}?)` : '';
}

/** Levenshtein distance: insertions, deletions and substitutions each cost one. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length]!;
}
