// The old spellings of commands and options, kept working for one release after
// the CLI's verbs were made consistent (docs/reference/cli.md: show for one item,
// set for create-or-replace, rotate for every rotation, --yes for every
// confirmation, --company for every list filter). An old spelling is rewritten
// to its new one before commander parses, so it is in no --help, and one line
// on stderr names the new spelling — never on stdout, where --json output stays
// one JSON document. Remove this table (and its call in cli-program.ts) in the
// next release.

/** What a deprecated spelling becomes, and the note that says so. */
export interface Respelled {
  args: string[];
  note: string;
}

/** An old spelling and the one that replaced it, as the CLI reference lists them. */
export interface Spelling {
  old: string;
  now: string;
}

interface Deprecation {
  /** The command words the old spelling starts with. */
  path: readonly string[];
  /** What it respells, for the reference. */
  spellings: readonly Spelling[];
  /** The whole command line in its new spelling, or undefined when `rest` (what follows `path`) is not the old spelling. */
  respell(rest: string[]): { args: string[]; old: string; now: string } | undefined;
}

/** A command renamed: every argument and option stays as it was. */
function renamed(old: string, now: string): Deprecation {
  const path = old.split(' ');
  return { path, spellings: [{ old, now }], respell: (rest) => ({ args: [...now.split(' '), ...rest], old, now }) };
}

/** An option of one command renamed. */
function optionRenamed(command: string, old: string, now: string): Deprecation {
  const path = command.split(' ');
  return {
    path,
    spellings: [{ old: `${command} ${old}`, now: `${command} ${now}` }],
    respell(rest) {
      const at = optionsPart(rest).indexOf(old);
      if (at < 0) return undefined;
      return {
        args: [...path, ...rest.slice(0, at), now, ...rest.slice(at + 1)],
        old: `${command} ${old}`,
        now: `${command} ${now}`,
      };
    },
  };
}

/** The arguments before `--`: after it, a word that looks like an option is an argument. */
function optionsPart(rest: string[]): string[] {
  const end = rest.indexOf('--');
  return end < 0 ? rest : rest.slice(0, end);
}

/** The words that are not options; for commands whose options are all flags without a value. */
function operands(rest: string[]): string[] {
  return rest.filter((word) => !word.startsWith('-'));
}

const DEPRECATIONS: readonly Deprecation[] = [
  renamed('flow get', 'flow show'),
  renamed('user regenerate-key', 'user rotate-key'),
  renamed('secrets rotate-key', 'secret-store rotate'),
  optionRenamed('connection delete', '--force', '--yes'),
  {
    // `connection list <company>` → `connection list --company <company>`, like every other list.
    path: ['connection', 'list'],
    spellings: [{ old: 'connection list <company>', now: 'connection list --company <company>' }],
    respell(rest) {
      const words = operands(rest);
      if (words.length !== 1 || rest.includes('--company')) return undefined;
      const others = rest.filter((word) => word !== words[0]);
      return {
        args: ['connection', 'list', '--company', words[0]!, ...others],
        old: 'connection list <company>',
        now: 'connection list --company <company>',
      };
    },
  },
  {
    // `company egress <company> [entries…] [--clear]` showed, set or removed the list: now three verbs.
    path: ['company', 'egress'],
    spellings: [
      { old: 'company egress <company>', now: 'company egress show <company>' },
      { old: 'company egress <company> <entries…>', now: 'company egress set <company> <entries…>' },
      { old: 'company egress <company> --clear', now: 'company egress delete <company>' },
    ],
    respell(rest) {
      const [company, ...entries] = operands(rest);
      if (company === undefined || rest[0] !== company || ['show', 'set', 'delete', 'help'].includes(company))
        return undefined;
      const options = rest.filter((word) => word.startsWith('-') && word !== '--clear');
      if (rest.includes('--clear'))
        return egress('delete', '<company> --clear', '<company>', [company, ...entries, ...options]);
      if (entries.length > 0)
        return egress('set', '<company> <entries…>', '<company> <entries…>', [company, ...entries, ...options]);
      return egress('show', '<company>', '<company>', [company, ...options]);
    },
  },
];

function egress(verb: string, old: string, now: string, rest: string[]) {
  return {
    args: ['company', 'egress', verb, ...rest],
    old: `company egress ${old}`,
    now: `company egress ${verb} ${now}`,
  };
}

/** Every old spelling that still works, with its replacement. */
export const DEPRECATED_SPELLINGS: readonly Spelling[] = DEPRECATIONS.flatMap((deprecation) => deprecation.spellings);

/** The command line in its current spelling, and the deprecation note when it was an old one. */
export function respellDeprecated(args: readonly string[]): Respelled | undefined {
  for (const deprecation of DEPRECATIONS) {
    const { path } = deprecation;
    if (!path.every((word, i) => args[i] === word)) continue;
    const respelled = deprecation.respell(args.slice(path.length));
    if (!respelled) continue;
    return {
      args: respelled.args,
      note: `flowhook: "${respelled.old}" is deprecated and will be removed in the next release; use "${respelled.now}"`,
    };
  }
  return undefined;
}
