// The names a webhook RPC carries (common/name-limits.ts), checked before the
// caller is authenticated, a rate bucket is charged or a cache is asked: the
// facade refuses such names already, and callers of the engine's RPCs
// directly get the same rule.
import { exceedsNameLimit, nameLimitRule, type NamedThing } from '../../../common/name-limits.ts';
import { InvalidArgumentError } from '../../errors.ts';

export function requireNamesWithinLimits(
  names: Partial<Record<Extract<NamedThing, 'company' | 'activity'>, string>>,
): void {
  for (const kind of ['company', 'activity'] as const) {
    const value = names[kind];
    if (value !== undefined && exceedsNameLimit(kind, value))
      throw new InvalidArgumentError(`${kind} is too long (${nameLimitRule(kind)})`);
  }
}
