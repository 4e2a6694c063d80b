// The payload reaches the flow exactly as sent. A formula
// that hands the payload (or a part of it, or one of its numbers) on
// unchanged writes the caller's text; anything computed is written as computed.
import test from 'ava';
import fc from 'fast-check';
import { parseExactJson, resolveText, resolveValue } from '../../flow/formula/index.ts';
import type { FormulaContext } from '../../flow/formula/index.ts';
import { writeExactJson } from '../../flow/formula/exact-json-writer.ts';
import { toJsonText } from '../../flow/formula/json-value.ts';
import { triggerOutputs } from '../../flow/trigger-outputs.ts';
import type { FlowExecutionInput } from '../../flow/index.ts';

const ODD =
  '{ "z":1,  "a" : {"amount": 12345678901234567890, "price": 1.10,"k":1e3, "neg": -0, "tiny": 0.1e-7},\n"2": [1.50, 2], "b": "x\\u0041" }';

function input(payloadJson: string, direct?: Partial<NonNullable<FlowExecutionInput['direct']>>): FlowExecutionInput {
  return {
    company: 'Acme',
    flowName: 'f',
    flowVersion: 1,
    steps: [],
    trigger: {
      activity: 'a',
      description: 'd',
      responseMode: 'INSTANT_RETURN',
      syncTimeoutMs: 1000,
      defaultResponse: { statusCode: 200, contentType: 'application/json' },
      doNotLogPayload: false,
    },
    payloadJson,
    caller: 'c',
    ...(direct
      ? {
          direct: {
            method: 'POST',
            headers: {},
            query: '',
            contentType: 'application/json',
            bodyEncoding: 'text',
            provider: { scheme: 'stripe' },
            ...direct,
          },
        }
      : {}),
  };
}

function context(
  payloadJson: string,
  exactValues = true,
  direct?: Partial<NonNullable<FlowExecutionInput['direct']>>,
): FormulaContext {
  return {
    Trigger: triggerOutputs(input(payloadJson, direct), { exactValues }),
    Variables: {},
    Steps: {},
    Execution: { Id: 'e', StartedAt: '2026-01-01T00:00:00.000Z' },
    Company: { Name: 'Acme' },
  };
}

/** JSON texts with random spacing around every token, so source slices matter. */
const spacedJson = fc.jsonValue().chain((value) =>
  fc.array(fc.constantFrom('', ' ', '\n', '\t', '  ', '\r\n'), { minLength: 64, maxLength: 64 }).map((spaces) => {
    let n = 0;
    const space = () => spaces[n++ % spaces.length]!;
    const write = (v: unknown): string => {
      if (Array.isArray(v)) return `[${space()}${v.map((item) => space() + write(item) + space()).join(',')}]`;
      if (v !== null && typeof v === 'object')
        return `{${Object.entries(v)
          .map(([k, item]) => `${space()}${JSON.stringify(k)}${space()}:${space()}${write(item)}`)
          .join(',')}${space()}}`;
      return JSON.stringify(v);
    };
    return space() + write(value) + space();
  }),
);

/** Number spellings JSON allows but JavaScript prints differently (or the same). */
const numberText = fc
  .tuple(
    fc.boolean(),
    fc.oneof(fc.constant('0'), fc.bigInt({ min: 1n, max: 10n ** 30n }).map(String)),
    fc.option(fc.stringMatching(/^[0-9]{1,20}$/)),
    fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 400 }))),
  )
  .map(
    ([minus, whole, fraction, exponent]) =>
      `${minus ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}${exponent ? exponent[0] + exponent[1] + exponent[2] : ''}`,
  );

test('parseExactJson gives the value JSON.parse gives, for any JSON text', (t) => {
  fc.assert(
    fc.property(spacedJson, (text) => {
      t.deepEqual(parseExactJson(text), JSON.parse(text));
    }),
  );
  const proto = parseExactJson('{"__proto__": {"x": 1}}') as Record<string, unknown>;
  t.true(Object.hasOwn(proto, '__proto__'), '__proto__ stays a member, as with JSON.parse');
  t.is(Object.getPrototypeOf(proto), Object.prototype);
  t.deepEqual(parseExactJson('{"a": 1.10, "a": 2}'), { a: 2 }, 'the last of repeated keys wins');
});

test('parseExactJson accepts exactly what JSON.parse accepts', (t) => {
  const broken = fc
    .tuple(
      spacedJson,
      fc.nat(),
      fc.nat({ max: 3 }),
      fc.constantFrom('', ',', '"', '\\', '{', ']', '0', '-', '.', 'e', ' ', '\u0001', 'x'),
    )
    .map(
      ([text, at, cut, insert]) =>
        text.slice(0, at % (text.length + 1)) + insert + text.slice((at % (text.length + 1)) + cut),
    );
  fc.assert(
    fc.property(fc.oneof(broken, fc.string()), (text) => {
      let expected: unknown;
      try {
        expected = JSON.parse(text);
      } catch {
        t.throws(() => parseExactJson(text), { instanceOf: SyntaxError });
        return;
      }
      t.deepEqual(parseExactJson(text), expected);
    }),
    { numRuns: 2000 },
  );
});

test('parseExactJson refuses what JSON.parse refuses, without quoting the text', (t) => {
  for (const bad of [
    '',
    '{',
    '[1,]',
    '{"a":1,}',
    '01',
    '1.',
    '-',
    '.5',
    '+1',
    '"a',
    '"\t"',
    '"\\x"',
    'tru',
    'nul',
    '{"a" 1}',
    '[1 2]',
    '{} {}',
    "'a'",
    'NaN',
    '{a:1}',
    '"\\u12"',
  ]) {
    t.throws(() => JSON.parse(bad), undefined, bad);
    const error = t.throws(() => parseExactJson(bad), { instanceOf: SyntaxError }, bad);
    t.regex(error!.message, /^not valid JSON: .* at offset \d+$/);
  }
});

test('${Trigger.Payload} writes any JSON payload exactly as sent', async (t) => {
  await fc.assert(
    fc.asyncProperty(spacedJson, async (text) => {
      const ctx = context(text);
      const parsed = ctx.Trigger.Payload;
      // A string payload is text, written without quotes (as every string result is).
      const expected =
        typeof parsed === 'string' ? parsed : parsed === null ? '' : typeof parsed === 'object' ? text : text.trim();
      t.is(await resolveText('${Trigger.Payload}', ctx), expected);
      t.is(await resolveText('<${Trigger.Payload}>', ctx), `<${expected}>`, 'also inside a longer template');
    }),
    { numRuns: 200 },
  );
});

test('a payload number keeps its spelling when written out unchanged', async (t) => {
  await fc.assert(
    fc.asyncProperty(numberText, async (spelled) => {
      const ctx = context(`{"n": ${spelled}, "list": [${spelled}]}`);
      t.is(await resolveText('${Trigger.Payload.n}', ctx), spelled);
      t.is(await resolveText('{{Trigger.Payload.n}}', ctx), spelled);
      t.is(await resolveText('${Trigger.Payload.list}', ctx), `[${spelled}]`);
      t.is(await resolveText('${Trigger.Payload.list[0]}|{{Trigger.Payload.list[0]}}', ctx), `${spelled}|${spelled}`);
      t.is(await resolveText('${ {"n": Trigger.Payload.n} }', ctx), `{"n":${spelled}}`);
      // Still a number to compute with: the result is written as computed.
      const value = Number(spelled);
      if (!Number.isFinite(value)) return; // beyond a double (1e400): nothing to compute with, but still written as sent
      t.is(await resolveValue('${Trigger.Payload.n}', ctx), value);
      t.is(await resolveText('${Trigger.Payload.n * 1}', ctx), String(value * 1));
    }),
    { numRuns: 300 },
  );
});

test('the named spellings survive; arithmetic and comparison still work on them', async (t) => {
  const ctx = context(ODD);
  t.is(await resolveText('${Trigger.Payload}', ctx), ODD);
  t.is(await resolveText('${Trigger.Payload.a.amount}', ctx), '12345678901234567890');
  t.is(await resolveText('{{Trigger.Payload.a.amount}}', ctx), '12345678901234567890');
  t.is(await resolveText('${Trigger.Payload.a.price}', ctx), '1.10');
  t.is(await resolveText('${Trigger.Payload.a.k}', ctx), '1e3');
  t.is(await resolveText('${Trigger.Payload.a.neg}', ctx), '-0');
  t.is(await resolveText('${Trigger.Payload.a.tiny}', ctx), '0.1e-7');
  t.is(await resolveText('${Trigger.Payload.`2`[0]}', ctx), '1.50', 'a literal index is a plain path too');
  const listed = context('{"l": [1.50, {"p": 2.50}]}');
  t.is(
    await resolveText('{{Trigger.Payload.l[0]}} {{Trigger.Payload.l[1].p}} ${Trigger.Payload.l[1].p}', listed),
    '1.50 2.50 2.50',
  );
  t.is(await resolveText('${ {"p": Trigger.Payload.`2`[0]} }', ctx), '{"p":1.50}');
  t.is(
    await resolveText('${Trigger.Payload.`2`[-2]}', ctx),
    '1.5',
    'a negative index is not followed: written as JavaScript prints it',
  );
  t.is(
    await resolveText('${Trigger.Payload.a}', ctx),
    '{"amount": 12345678901234567890, "price": 1.10,"k":1e3, "neg": -0, "tiny": 0.1e-7}',
  );
  t.is(
    await resolveText(
      '${ {"amount": Trigger.Payload.a.amount, "price": Trigger.Payload.a.price, "x": [Trigger.Payload.a.k, 2]} }',
      ctx,
    ),
    '{"amount":12345678901234567890,"price":1.10,"x":[1e3,2]}',
  );
  t.is(await resolveText('${ {"whole": Trigger.Payload} }', ctx), `{"whole":${ODD}}`);
  // Computed: written as JavaScript computes it.
  t.is(await resolveText('${Trigger.Payload.a.price * 2}', ctx), '2.2');
  t.is(await resolveText('${Trigger.Payload.a.k + 1}', ctx), '1001');
  t.is(await resolveText('${ {"p": Trigger.Payload.a.price + 0} }', ctx), '{"p":1.1}');
  t.is(await resolveValue('${Trigger.Payload.a.price = 1.1}', ctx), true);
  t.is(
    await resolveValue('${Trigger.Payload.a.amount > 12345678901234567000}', ctx),
    false,
    'same double as the literal',
  );
  t.is(
    await resolveText('${ $merge([Trigger.Payload.a, {"extra": 1}]) }', ctx),
    '{"amount":12345678901234567000,"price":1.1,"k":1000,"neg":0,"tiny":1e-8,"extra":1}',
  );
});

test('values kept in variables stay exact; a transformed copy does not', async (t) => {
  const ctx = context(ODD);
  ctx.Variables.whole = await resolveValue('${Trigger.Payload}', ctx);
  t.is(await resolveText('{{Variables.whole}}', ctx), ODD);
  t.is(await resolveText('${Variables.whole}', ctx), ODD);
  t.is(
    await resolveText('${Variables.whole ~> |$|{"z": 2}|}', ctx),
    '{"2":[1.5,2],"z":2,"a":{"amount":12345678901234567000,"price":1.1,"k":1000,"neg":0,"tiny":1e-8},"b":"xA"}',
    'a transformed copy is written as computed',
  );
});

test('executions started before exact values write what they wrote before', async (t) => {
  const ctx = context(ODD, false);
  t.is(await resolveText('${Trigger.Payload}', ctx), JSON.stringify(JSON.parse(ODD)));
  t.is(await resolveText('${Trigger.Payload.a.amount}', ctx), '12345678901234567000');
  t.is(await resolveText('{{Trigger.Payload.a.price}}', ctx), '1.1');
  t.is(await resolveText('{{Trigger.Payload}}', ctx), ODD, 'the field wrote the exact text already');
});

test('without annotations the writer is JSON.stringify', (t) => {
  fc.assert(
    fc.property(fc.jsonValue(), (value) => {
      t.is(writeExactJson(value), JSON.stringify(value));
      t.is(toJsonText({ wrapped: value }), JSON.stringify({ wrapped: value }));
    }),
  );
});

test('a member named __proto__ is written as data, not taken for the prototype', (t) => {
  const value = JSON.parse('{"a":1,"__proto__":{"polluted":true},"b":2}');
  t.is(toJsonText({ wrapped: value }), '{"wrapped":{"a":1,"__proto__":{"polluted":true},"b":2}}');
  t.is(({} as { polluted?: unknown }).polluted, undefined);
});

test('a bare number payload keeps its spelling; the provider route applies the same rule to Trigger.Json', async (t) => {
  t.is(await resolveText('${Trigger.Payload}', context(' 12345678901234567890 ')), '12345678901234567890');
  const direct = context('{"id": "evt_1",  "amount": 1.10}\n', true, {});
  t.is(await resolveText('${Trigger.Json}', direct), '{"id": "evt_1",  "amount": 1.10}\n');
  t.is(await resolveText('${Trigger.Payload}', direct), '{"id": "evt_1",  "amount": 1.10}\n');
  t.is(await resolveText('${Trigger.Json.amount}', direct), '1.10');
  const broken = context('{"id": oops', true, {});
  t.is(broken.Trigger.Json, undefined, 'a body that is not JSON stays text');
  t.is(broken.Trigger.Payload, '{"id": oops');
});
