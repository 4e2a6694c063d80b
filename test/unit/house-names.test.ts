// One name, one meaning: the facade and the engine do different jobs (the
// facade reads the HTTP request and forwards it, the engine decides), so a
// name exported by both would mean two things. And comments cite only what the
// repository ships: a rule is stated where it applies, not by a section number
// of a document nobody reading the code has.
import test from 'ava';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SELF = fileURLToPath(import.meta.url);

function filesUnder(folder: string, keep: (name: string) => boolean): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && keep(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Every name a module exports, declared or listed. */
function exportedNames(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const names: string[] = [];
  for (const statement of source.statements) {
    if (ts.isExportDeclaration(statement) && statement.exportClause && ts.isNamedExports(statement.exportClause)) {
      names.push(...statement.exportClause.elements.map((element) => element.name.text));
    }
    if (
      !ts.canHaveModifiers(statement) ||
      !ts.getModifiers(statement)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)
    )
      continue;
    if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations)
        if (ts.isIdentifier(declaration.name)) names.push(declaration.name.text);
    } else if ('name' in statement && statement.name && ts.isIdentifier(statement.name as ts.Node)) {
      names.push((statement.name as ts.Identifier).text);
    }
  }
  return names;
}

// Each process has its own of these, with the same job on both sides.
const PROCESS_FILES = new Set(['config.ts', 'logger.ts', 'main.ts']);
const PROCESS_NAMES = new Set(['REDACTED_PATHS']);

test('the facade and the engine export no name and have no file name in common, beyond each process its own config, logger and main', (t) => {
  const side = (folder: string) => filesUnder(folder, (name) => name.endsWith('.ts'));
  const facade = side('facade');
  const engine = side('engine');
  const files = (list: string[]) => new Set(list.map((file) => basename(file)));
  const engineFiles = files(engine);
  t.deepEqual(
    [...files(facade)].filter((name) => engineFiles.has(name) && !PROCESS_FILES.has(name)),
    [],
  );
  const engineNames = new Set(engine.flatMap(exportedNames));
  const shared = [...new Set(facade.flatMap(exportedNames))].filter(
    (name) => engineNames.has(name) && !PROCESS_NAMES.has(name),
  );
  t.deepEqual(shared, []);
  // The comparison sees both sides' exports (a parse that found none would pass above).
  t.true(engineNames.has('invokeWebhook') && engineNames.has('NotFoundError'));
});

test('no source, proto or handbook text cites the design document or a section of the product spec', (t) => {
  const cited = /DESIGN\.md|DESIGN "|\bspec §|\bSpec §/;
  const text = (name: string) => /\.(ts|proto|md|yaml|json)$/.test(name) && name !== 'package-lock.json';
  const files = ['bin', 'common', 'docs', 'engine', 'examples', 'facade', 'flow', 'proto', 'test', 'workflows']
    .flatMap((folder) => filesUnder(folder, text))
    .concat(['README.md', 'buf.yaml', 'flow.schema.json'].map((name) => join(ROOT, name)))
    .filter((file) => file !== SELF);
  t.true(files.length > 100);
  const citing = files.flatMap((file) =>
    readFileSync(file, 'utf8')
      .split('\n')
      .flatMap((line, index) => (cited.test(line) ? [`${relative(ROOT, file)}:${index + 1}`] : [])),
  );
  t.deepEqual(citing, []);
});
