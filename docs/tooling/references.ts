// Every generated part of the handbook, by the id its page names it with
// (generated-sections.ts), and what renders it. One list, so `npm run docs`
// and the staleness test cannot miss one.
import { readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { renderCliReference } from './cli-reference.ts';
import { renderConfigurationReference } from './configuration-reference.ts';
import { renderEngineApiReference } from './engine-api-reference.ts';
import { renderExampleIndex } from './flow-examples.ts';
import { renderFlowFileReference } from './flow-file-reference.ts';
import {
  renderFormulaFunctionsReference,
  renderFormulaLimitsReference,
  renderFormulaRootsReference,
} from './formulas-reference.ts';
import type { Section } from './generated-sections.ts';
import { REPOSITORY_ROOT } from './handbook-pages.ts';
import { renderHttpRoutesReference } from './http-routes-reference.ts';
import { fenced } from './markdown.ts';
import { renderMetricsReference } from './metrics-reference.ts';
import { renderRefusalReasonsReference } from './refusal-reasons-reference.ts';
import { renderVerificationSchemesReference } from './verification-schemes-reference.ts';

type Renderer = () => string | Promise<string>;

export const REFERENCES: Readonly<Record<string, Renderer>> = {
  configuration: () => renderConfigurationReference(2),
  cli: renderCliReference,
  'engine-api': renderEngineApiReference,
  'flow-file': renderFlowFileReference,
  'example-flows': () => renderExampleIndex('../../'),
  'verification-schemes': renderVerificationSchemesReference,
  'refusal-reasons': renderRefusalReasonsReference,
  metrics: renderMetricsReference,
  'http-routes': renderHttpRoutesReference,
  'formula-roots': renderFormulaRootsReference,
  'formula-functions': renderFormulaFunctionsReference,
  'formula-limits': renderFormulaLimitsReference,
};

const LANGUAGES: Readonly<Record<string, string>> = {
  '.yaml': 'yaml',
  '.yml': 'yaml',
  '.json': 'json',
  '.ts': 'ts',
  '.sh': 'sh',
};

/** What a generated part holds now: a rendered reference, or an example file as a code block. */
export async function renderSection(section: Section): Promise<string> {
  if (section.kind === 'EXAMPLE') {
    if (!section.id.startsWith('examples/')) throw new Error(`an example is a file in examples/, not ${section.id}`);
    return fenced(LANGUAGES[extname(section.id)] ?? '', readFileSync(join(REPOSITORY_ROOT, section.id), 'utf8'));
  }
  const render = REFERENCES[section.id];
  if (!render)
    throw new Error(
      `no generated reference "${section.id}" (docs/tooling/references.ts lists them: ${Object.keys(REFERENCES).join(', ')})`,
    );
  return render();
}
