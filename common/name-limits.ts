// The longest names flowhook accepts, in characters (UTF-16 code units, as
// JavaScript counts them). They are checked where a name is created (company
// create, flow apply, user create, hook-secret set) and at every door a name
// comes through from outside — the facade's routes, the engine's webhook RPCs,
// Basic credentials — before anything is counted, cached or looked up for it.
// A name longer than its limit cannot exist, so refusing it early tells a
// caller nothing, and nothing an outsider writes into a path, a query or a user
// name can grow a rate bucket, a cache or a log line beyond these bounds.

export const NAME_LIMITS = {
  company: 250,
  activity: 200,
  flow: 250,
  user: 250,
} as const;

export type NamedThing = keyof typeof NAME_LIMITS;

const LABELS: Readonly<Record<NamedThing, string>> = {
  company: 'company name',
  activity: 'activity',
  flow: 'flow name',
  user: 'user name',
};

/** True when `value` is longer than any name of this kind can be. */
export function exceedsNameLimit(kind: NamedThing, value: string): boolean {
  return value.length > NAME_LIMITS[kind];
}

/** The rule as a message says it: `company name: at most 250 characters`. */
export function nameLimitRule(kind: NamedThing): string {
  return `${LABELS[kind]}: at most ${NAME_LIMITS[kind]} characters`;
}
