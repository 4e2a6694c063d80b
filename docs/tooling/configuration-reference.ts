// The configuration reference (docs/reference/configuration.md), rendered from the configuration
// table: one section per group, one row per variable (who reads it, its type and bounds, its
// default, what it means). `--help`'s environment lists come from the same rows
// (bin/cli/environment-help.ts).
import { CONFIGURATION_TABLE } from '../../common/configuration/configuration-table.ts';
import { PROCESS_TITLES, type AnySetting } from '../../common/configuration/setting.ts';
import { sentence, table } from './markdown.ts';

/** The reference's Markdown; `headingLevel` is that of each group's heading (2: `##`). */
export function renderConfigurationReference(headingLevel: number): string {
  const groups = new Map<string, [string, AnySetting][]>();
  for (const [name, row] of Object.entries(CONFIGURATION_TABLE) as [string, AnySetting][]) {
    groups.set(row.group, [...(groups.get(row.group) ?? []), [name, row]]);
  }
  const sections = [...groups].map(([group, rows]) =>
    [
      `${'#'.repeat(headingLevel)} ${group}`,
      '',
      table(
        ['variable', 'read by', 'type', 'default', 'meaning'],
        rows.map(([name, row]) => cells(name, row)),
      ),
    ].join('\n'),
  );
  return sections.join('\n\n');
}

function cells(name: string, row: AnySetting): string[] {
  const readers = row.processes.map((process) => PROCESS_TITLES[process]).join(', ');
  const readBy = row.launcher ? `bin/flowhook (${readers})` : readers;
  const type = row.retired !== undefined ? '—' : `${row.type.description}${row.secret ? ', secret' : ''}`;
  const fallback = row.defaultText ?? (row.default === undefined ? 'unset' : `\`${row.type.format(row.default)}\``);
  const roles = Object.entries(row.roles ?? {}).map(
    ([process, role]) => `*${PROCESS_TITLES[process as keyof typeof PROCESS_TITLES]}*: ${role}.`,
  );
  const meaning =
    row.retired !== undefined
      ? `**no longer read**: ${row.meaning}; a process that finds it set stops and says: \`${row.retired}\``
      : row.meaning;
  return [
    `\`${name}\``,
    readBy,
    type,
    row.retired !== undefined ? '—' : fallback,
    [sentence(meaning), ...roles, row.more ?? ''].filter(Boolean).join(' '),
  ];
}
