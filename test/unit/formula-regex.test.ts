// Formula regular expressions run on RE2 (linear time), with JSONata's
// semantics otherwise unchanged, charged to the evaluation budget for the text
// they search; what RE2 cannot express is refused at publish, with the reason.
import test from 'ava';
import type { ExecutionContext } from 'ava';
import type { FlowJson } from '../../proto/gen/flowhook/flow/v1/flow_pb.js';
import { FormulaError, resolveValue } from '../../flow/formula/index.ts';
import type { FormulaContext } from '../../flow/formula/index.ts';
import { MAX_PICTURE_TIMESTAMP_LENGTH } from '../../flow/formula/timestamp-picture.ts';
import { validateFlow } from '../../flow/index.ts';

const context = (variables: Record<string, unknown> = {}): FormulaContext => ({
  Trigger: { Payload: {}, PayloadJson: '{}', Activity: 'a', Description: '' },
  Variables: variables,
  Steps: {},
  Execution: { Id: 'e', StartedAt: '' },
  Company: { Name: 'c' },
});

const TEXT = 'Hello World, hello ÄÖ 😀 x\nline2 Hello';
const value = (formula: string, variables: Record<string, unknown> = { t: TEXT }) =>
  resolveValue(`\${ ${formula} }`, context(variables));

async function refusal(t: ExecutionContext, formula: string, variables: Record<string, unknown>): Promise<string> {
  const error = await t.throwsAsync(value(formula, variables), { instanceOf: FormulaError });
  return error!.reason;
}

// A backtracking engine tries every way to split the a's between the two
// loops: 2^n steps for n a's (24 took 255 ms, so this would take longer than
// the age of the universe).
test('a nested quantifier over a long run of caller text completes, with the right answer', async (t) => {
  const run = 'a'.repeat(100_000);
  t.false(await value('$contains(Variables.t, /^(a+)+$/)', { t: `${run}b` }));
  t.true(await value('$contains(Variables.t, /^(a+)+$/)', { t: run }));
  t.is(await value('$match(Variables.t, /(a|aa)+c/)', { t: `${'a'.repeat(5000)}b` }), null);
});

test('many regex calls over a long string are refused by the evaluation budget', async (t) => {
  const reason = await refusal(t, '$map([1..1000], function($i){ $contains(Variables.t, /z/) })', {
    t: 'a'.repeat(1024 * 1024),
  });
  t.regex(
    reason,
    /evaluation took more than 200000 steps \(regular expressions cost a step per 100 characters of text they search\)/,
  );
});

test('a global search that finds a match at every character of a long text is refused by the budget', async (t) => {
  const reason = await refusal(t, '$replace(Variables.t, /a(?:.*z)?/, "b")', { t: 'a'.repeat(100_000) });
  t.regex(reason, /regular expressions cost a step/);
});

test('matches, groups, flags and limits are what JSONata gives', async (t) => {
  t.deepEqual(await value('$match(Variables.t, /hello/i).index'), [0, 13, 33]);
  t.deepEqual(await value('$match(Variables.t, /(h)(e)(l+)o/i, 2).match'), ['Hello', 'hello']);
  t.deepEqual(await value('$match(Variables.t, /(h)(e)(l+)o/i, 2)[1].groups'), ['h', 'e', 'll']);
  t.deepEqual(await value('$match(Variables.t, /(x)?(World)/)'), { match: 'World', index: 6, groups: [null, 'World'] });
  t.deepEqual(await value('$match(Variables.t, /😀 (x)/)'), { match: '😀 x', index: 22, groups: ['x'] });
  t.deepEqual(await value('$match(Variables.t, /(?<word>W\\w+)/).groups'), ['World']);
  t.deepEqual(await value('$match("2024-01-31", /(\\d{4})-(\\d{2})-(\\d{2})/).groups'), ['2024', '01', '31']);
  t.true(await value('$contains(Variables.t, /^line2/m)'));
  t.false(await value('$contains(Variables.t, /^line2/)'));
  t.true(await value('$contains("é/x", /\\u00e9\\//)'));
  t.deepEqual(await value('"abc" ~> /b/'), { match: 'b', start: 1, end: 2, groups: [] });
});

test('$replace with $1 and $$, with a limit and with a function, and $split with a regex', async (t) => {
  t.is(await value('$replace(Variables.t, /(\\w+) (\\w+)/, "$2 $1")'), 'World Hello, hello ÄÖ 😀 x\nHello line2');
  t.is(await value('$replace(Variables.t, /l+/, "L", 2)'), 'HeLo WorLd, hello ÄÖ 😀 x\nline2 Hello');
  t.is(await value('$replace("a.b.c", /\\./, "$$")'), 'a$b$c');
  t.is(await value('$replace("one two", /o/, function($m){ $uppercase($m.match) })'), 'One twO');
  t.deepEqual(await value('$split(Variables.t, /[ ,]+/)'), [
    'Hello',
    'World',
    'hello',
    'ÄÖ',
    '😀',
    'x\nline2',
    'Hello',
  ]);
  t.deepEqual(await value('$split("a1b2c3", /\\d/, 2)'), ['a', 'b']);
});

test('a regex that matches the empty string still fails as JSONata says', async (t) => {
  t.regex(await refusal(t, '$match("aaa", /a*?/)', {}), /Regular expression matches zero length string \(D1004\)/);
});

const flowWith = (body: string): FlowJson =>
  ({
    company: 'Acme',
    name: 'f',
    trigger: { webhook: { activity: 'a.b', responseMode: 'WAIT_FOR_RESPONSE_STEP' } },
    steps: [{ respond: { statusCode: 200, body } }],
  }) as FlowJson;

test('publish refuses what RE2 cannot express, naming the field, the regex and the reason', (t) => {
  const cases: [string, RegExp][] = [
    [
      '${ $match(Trigger.Payload.s, /(a)\\1/) }',
      /steps\[0\]\.respond\.body: .*regular expression \/\(a\)\\1\/ cannot run in linear time \(RE2 syntax\): a backreference \(\\1\) is not supported/,
    ],
    [
      '${ $match(Trigger.Payload.s, /(?<y>a)\\k<y>/) }',
      /\/\(\?<y>a\)\\k<y>\/ cannot run in linear time .*a backreference \(\\k<y>\) is not supported/,
    ],
    ['${ $contains(Trigger.Payload.s, /(?<=EUR )\\d+/) }', /lookbehind \(\(\?<=…\) is not supported/],
    [
      '${ $contains(Trigger.Payload.s, /x(?!y)/i) }',
      /\/x\(\?!y\)\/i cannot run .*lookahead \(\(\?!…\) is not supported/,
    ],
    ['${ $split(Trigger.Payload.s, /a{1001}/) }', /invalid repeat count: \{1001\}/],
  ];
  for (const [body, expected] of cases) {
    const { errors } = validateFlow(flowWith(body));
    t.is(errors.length, 1, body);
    t.regex(errors[0]!, expected);
  }
  t.deepEqual(validateFlow(flowWith('${ $replace(Trigger.Payload.s, /(?<w>\\w+)\\s+/i, "$1") }')).errors, []);
});

test('$toMillis with a picture refuses timestamps no date reaches, and pictures whose markers run together', async (t) => {
  t.is(
    await value('$toMillis(Variables.t, Variables.p)', { t: '31st January 2024', p: '[D1o] [MNn] [Y]' }),
    Date.UTC(2024, 0, 31),
  );
  t.is(
    await value('$toMillis(Variables.t, Variables.p)', { t: '20240131', p: '[Y0001][M01][D01]' }),
    Date.UTC(2024, 0, 31),
  );
  const long = 'a'.repeat(MAX_PICTURE_TIMESTAMP_LENGTH + 1);
  t.regex(
    await refusal(t, '$toMillis(Variables.t, Variables.p)', { t: long, p: '[MNn] [FNn]' }),
    /at most 100 characters with a picture/,
  );
  // JSONata's expression for this picture is ^([a-zA-Z]+)([a-zA-Z]+)$ (an 'i' flag, so V8's linear fallback cannot take it).
  t.regex(
    await refusal(t, '$toMillis(Variables.t, Variables.p)', { t: 'JanuaryFriday', p: '[MNn][FNn]' }),
    /names or words with nothing that tells them apart/,
  );
  t.regex(
    await refusal(t, '$toMillis(Variables.t, Variables.p)', { t: 'one two', p: '[Yw] [Mw]' }),
    /nothing that tells them apart/,
  );
});
