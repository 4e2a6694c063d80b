import test from 'ava';
import { FormulaError, parseTemplate } from '../../flow/formula/index.ts';

const formula = (expression: string) => ({ kind: 'formula', expression });
const text = (value: string) => ({ kind: 'text', text: value });
const field = (path: string) => ({ kind: 'field', path });

test('text, fields and formulas come out in order', (t) => {
  t.deepEqual(parseTemplate('Order {{Trigger.Payload.order.id}} is ${Variables.status}.'), [
    text('Order '),
    field('Trigger.Payload.order.id'),
    text(' is '),
    formula('Variables.status'),
    text('.'),
  ]);
  t.deepEqual(parseTemplate('no placeholders $ { } }}'), [text('no placeholders $ { } }}')]);
  t.deepEqual(parseTemplate(''), []);
});

test('a formula ends at its own closing brace, not at one inside nested objects', (t) => {
  t.deepEqual(parseTemplate('${ {"a": {"b": [1, {"c": 2}]}} }!'), [
    formula(' {"a": {"b": [1, {"c": 2}]}} '),
    text('!'),
  ]);
  t.deepEqual(parseTemplate('${ ( $x := {"k": 1}; $x.k ) }'), [formula(' ( $x := {"k": 1}; $x.k ) ')]);
});

test('braces inside strings, backtick names, comments and regexes do not count', (t) => {
  t.deepEqual(parseTemplate(`\${ "a}\\"}" & 'b}\\'}' }`), [formula(` "a}\\"}" & 'b}\\'}' `)]);
  t.deepEqual(parseTemplate('${ `odd}name` }'), [formula(' `odd}name` ')]);
  t.deepEqual(parseTemplate('${ /* } */ 1 }'), [formula(' /* } */ 1 ')]);
  t.deepEqual(parseTemplate('${ $match(x, /\\}/) }'), [formula(' $match(x, /\\}/) ')]);
  // After an operand a slash is division, so the brace after it closes the formula.
  t.deepEqual(parseTemplate('${ a / 2 } / {{b}}'), [formula(' a / 2 '), text(' / '), field('b')]);
});

test('SmartField paths may have spaces around them and array indexes', (t) => {
  t.deepEqual(parseTemplate('{{ Steps.call.items[0].sku }}'), [field('Steps.call.items[0].sku')]);
});

test('backslash escapes give a literal ${ and {{; other backslashes stay', (t) => {
  t.deepEqual(parseTemplate('cost \\${price} and \\{{name}}'), [text('cost ${price} and {{name}}')]);
  t.deepEqual(parseTemplate('C:\\dir\\n {{x}}'), [text('C:\\dir\\n '), field('x')]);
});

test('unterminated, empty and malformed placeholders throw a FormulaError', (t) => {
  const cases: [string, RegExp][] = [
    ['a ${ Variables.x', /unterminated "\$\{"/],
    ['a {{ Variables.x', /unterminated "\{\{"/],
    ['${ "open }', /unterminated string/],
    ['${}', /empty formula/],
    ['{{  }}', /empty field/],
    ['{{Variables.a b}}', /not a field path/],
    ['{{Variables..a}}', /not a field path/],
    ['{{Variables.a[x]}}', /not a field path/],
  ];
  for (const [template, reason] of cases) {
    const error = t.throws(() => parseTemplate(template), { instanceOf: FormulaError }, template);
    t.regex(error!.reason, reason, template);
  }
});
