// The SmartFields and SmartFormulas reference (docs/reference/formulas.md),
// generated parts: the roots a formula reads (the FormulaContext interface
// and its doc comments, read with the TypeScript compiler), the functions it
// may call and the ones refused (flow/formula/formula-names.ts,
// guarded-functions.ts), and the bounds of one evaluation
// (evaluation-limits.ts).
import { readFileSync } from 'node:fs';
import ts from 'typescript';
import {
  FORMULA_ROOTS,
  FLOWHOOK_FUNCTIONS,
  JSONATA_FUNCTIONS,
  REFUSED_FUNCTIONS,
  DIRECT_TRIGGER,
} from '../../flow/formula/formula-names.ts';
import { CHARGED_FUNCTIONS } from '../../flow/formula/guarded-functions.ts';
import {
  MAX_DEPTH,
  MAX_SEQUENCE_LENGTH,
  MAX_STEPS,
  MAX_STRING_CHARS_PER_EVALUATION,
  MAX_STRING_LENGTH,
  REGEX_CHARS_PER_STEP,
} from '../../flow/formula/evaluation-limits.ts';
import { MAX_PICTURE_TIMESTAMP_LENGTH } from '../../flow/formula/timestamp-picture.ts';
import { XML_FUNCTIONS } from '../../flow/formula/xml-functions.ts';
import { code, table } from './markdown.ts';

const CONTEXT_SOURCE = new URL('../../flow/formula/formula-context.ts', import.meta.url);

export function renderFormulaRootsReference(): string {
  const members = contextMembers();
  const roots = Object.keys(FORMULA_ROOTS);
  const missing = roots.filter(
    (root) => !members.some((member) => member.path === root || member.path.startsWith(`${root}.`)),
  );
  if (missing.length > 0)
    throw new Error(`FormulaContext has no documented member for the roots ${missing.join(', ')}`);
  const direct = new Set(Object.keys(DIRECT_TRIGGER).map((name) => `Trigger.${name}`));
  return table(
    ['path', 'what it holds'],
    members.map(({ path, doc }) => [
      code(path),
      [direct.has(path.split('.').slice(0, 2).join('.')) ? '*Provider route only.*' : '', doc]
        .filter(Boolean)
        .join(' '),
    ]),
  );
}

export function renderFormulaFunctionsReference(): string {
  const refused = Object.keys(REFUSED_FUNCTIONS);
  const builtIns = JSONATA_FUNCTIONS.filter((name) => !refused.includes(name));
  return [
    `**JSONata's functions** (JSONata 2.2): ${builtIns.map((name) => code(`$${name}`)).join(', ')}.`,
    '',
    `**flowhook's own**: ${FLOWHOOK_FUNCTIONS.map((name) => `${code(`$${name}`)} (signature ${code(XML_FUNCTIONS[name]!.signature)})`).join(', ')}.`,
    '',
    '**Refused** (publish names the formula and the reason):',
    '',
    table(
      ['function', 'why'],
      Object.entries(REFUSED_FUNCTIONS).map(([name, why]) => [code(`$${name}`), why]),
    ),
    '',
    `**Charged per call**: ${CHARGED_FUNCTIONS.map((name) => code(`$${name}`)).join(', ')} call their function argument from native code; every such call counts as a step of the budget below, natives included.`,
  ].join('\n');
}

export function renderFormulaLimitsReference(): string {
  const number = (value: number) => value.toLocaleString('en-US');
  return table(
    ['bound', 'value', 'what passes it'],
    [
      [
        'steps',
        number(MAX_STEPS),
        'nodes evaluated, plus every call a higher-order function makes, plus a step per ' +
          REGEX_CHARS_PER_STEP +
          ' characters a regular expression search may scan',
      ],
      ['recursion depth', number(MAX_DEPTH), 'nested function calls (JSONata error D1011)'],
      ['sequence length', number(MAX_SEQUENCE_LENGTH), 'a sequence or range of more items (JSONata error D2015)'],
      ['one string', `${number(MAX_STRING_LENGTH)} characters`, 'a longer string result'],
      [
        'new strings per evaluation',
        `${number(MAX_STRING_CHARS_PER_EVALUATION)} characters`,
        'all strings an evaluation builds, together (values only handed on cost nothing)',
      ],
      [
        '`$toMillis` with a picture',
        `${number(MAX_PICTURE_TIMESTAMP_LENGTH)} characters`,
        'a longer timestamp; pictures whose name or word markers run together (`[MNn][FNn]`) are refused',
      ],
    ],
  );
}

interface Member {
  path: string;
  doc: string;
}

/** FormulaContext's members, depth first, with their doc comments (a member whose type is an object lists its own members). */
function contextMembers(): Member[] {
  const text = readFileSync(CONTEXT_SOURCE, 'utf8');
  const file = ts.createSourceFile(CONTEXT_SOURCE.pathname, text, ts.ScriptTarget.Latest, true);
  const context = file.statements.find(
    (statement): statement is ts.InterfaceDeclaration =>
      ts.isInterfaceDeclaration(statement) && statement.name.text === 'FormulaContext',
  );
  if (!context) throw new Error('flow/formula/formula-context.ts no longer declares FormulaContext');
  const members: Member[] = [];
  const visit = (elements: ts.NodeArray<ts.TypeElement>, prefix: string) => {
    for (const element of elements) {
      if (!ts.isPropertySignature(element)) continue;
      const path = `${prefix}${element.name.getText(file)}`;
      const doc = ts
        .getJSDocCommentsAndTags(element)
        .filter(ts.isJSDoc)
        .map((jsdoc) => ts.getTextOfJSDocComment(jsdoc.comment) ?? '')
        .join(' ');
      const nested = element.type && ts.isTypeLiteralNode(element.type) ? element.type.members : undefined;
      if (doc !== '' || !nested) members.push({ path, doc });
      if (nested) visit(nested, `${path}.`);
    }
  };
  visit(context.members, '');
  return members;
}
