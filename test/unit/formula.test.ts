import test from 'ava';
import {
  FormulaError,
  checkTemplate,
  isTemplate,
  resolveDeep,
  resolveText,
  resolveValue,
} from '../../flow/formula/index.ts';
import type { FormulaContext } from '../../flow/formula/index.ts';

// Odd spacing on purpose: {{Trigger.Payload}} must insert exactly this text.
const PAYLOAD_JSON =
  '{ "order" : {"id": 42, "total": 19.50, "tags": ["a","b"],\n "note": "pay ${Variables.secret} {{Variables.secret}}"} }';

function makeContext(): FormulaContext {
  return {
    Trigger: {
      Payload: JSON.parse(PAYLOAD_JSON),
      PayloadJson: PAYLOAD_JSON,
      Activity: 'shop.order',
      Description: 'New order',
    },
    Variables: {
      orderId: 'A-1',
      count: 3,
      flag: true,
      nothing: null,
      secret: 'hunter2',
      list: [1, 2],
      obj: { k: 'v' },
    },
    Steps: { callSoap: { status: 200, items: [{ sku: 'S1' }, { sku: 'S2' }] } },
    Execution: { Id: 'exec-1', StartedAt: '2025-01-01T00:00:00.000Z' },
    Company: { Name: 'Acme' },
  };
}

test('a template that is exactly one formula keeps the raw value', async (t) => {
  const ctx = makeContext();
  t.is(await resolveValue('${Variables.count * 2}', ctx), 6);
  t.is(await resolveValue('${Variables.flag}', ctx), true);
  t.is(await resolveValue('${Variables.orderId}', ctx), 'A-1');
  t.is(await resolveValue('${Variables.nothing}', ctx), null);
  t.is(await resolveValue('${Variables.missing}', ctx), null, 'JSONata "no result" becomes null');
  t.deepEqual(await resolveValue('${Trigger.Payload.order.tags}', ctx), ['a', 'b']);
  t.deepEqual(await resolveValue('${Steps.callSoap.items.sku}', ctx), ['S1', 'S2']);
});

test('an object constructor formula yields an object, not text', async (t) => {
  const value = await resolveValue('${ {"orderId": Variables.orderId, "status": "accepted"} }', makeContext());
  t.deepEqual(value, { orderId: 'A-1', status: 'accepted' });
});

test('raw values are copies: changing one does not change the context', async (t) => {
  const ctx = makeContext();
  const value = (await resolveValue('${Variables.obj}', ctx)) as Record<string, unknown>;
  value.k = 'changed';
  t.deepEqual(ctx.Variables.obj, { k: 'v' });
});

test('anything else becomes text with each placeholder rendered', async (t) => {
  const ctx = makeContext();
  t.is(await resolveValue(' ${Variables.count}', ctx), ' 3', 'surrounding text makes it a string');
  t.is(await resolveText('${Variables.count}', ctx), '3');
  t.is(
    await resolveText(
      'n=${Variables.count} f=${Variables.flag} z=${Variables.nothing} m=${Variables.missing} o=${Variables.obj} l=${Variables.list}',
      ctx,
    ),
    'n=3 f=true z= m= o={"k":"v"} l=[1,2]',
  );
  t.is(await resolveText('plain text', ctx), 'plain text');
});

test('SmartFields insert member values as plain text', async (t) => {
  const ctx = makeContext();
  t.is(await resolveText('{{Trigger.Payload.order.id}}', ctx), '42');
  t.is(await resolveText('{{Variables.orderId}}/{{Steps.callSoap.status}}', ctx), 'A-1/200');
  t.is(await resolveText('{{Steps.callSoap.items[1].sku}}', ctx), 'S2');
  t.is(await resolveText('{{Variables.obj}} {{Variables.list}} {{Variables.flag}}', ctx), '{"k":"v"} [1,2] true');
  t.is(
    await resolveText('[{{Variables.missing.deeper}}][{{Variables.nothing}}][{{Steps.callSoap.items[9].sku}}]', ctx),
    '[][][]',
  );
  t.is(
    await resolveText('[{{Variables.constructor}}][{{Variables.list.length}}]', ctx),
    '[][]',
    'only own data members are reachable',
  );
  t.is(await resolveValue('{{Variables.count}}', ctx), '3', 'a lone field is still text');
});

test('{{Trigger.Payload}} inserts the original JSON text exactly', async (t) => {
  const ctx = makeContext();
  t.is(await resolveText('{{Trigger.Payload}}', ctx), PAYLOAD_JSON);
  t.is(await resolveText('body: {{ Trigger.Payload }}', ctx), `body: ${PAYLOAD_JSON}`);
  t.is(await resolveText('{{Trigger.Payload.order.total}}', ctx), '19.5', 'members below it are values as usual');
});

test('escapes produce literal placeholder syntax', async (t) => {
  const ctx = makeContext();
  t.is(
    await resolveText('\\${Variables.orderId} is {{Variables.orderId}}, \\{{x}}', ctx),
    '${Variables.orderId} is A-1, {{x}}',
  );
  t.false(isTemplate('\\${a} \\{{b}}'));
});

test('placeholder syntax inside data is never evaluated', async (t) => {
  const ctx = makeContext();
  const expected = 'pay ${Variables.secret} {{Variables.secret}}';
  t.is(await resolveText('{{Trigger.Payload.order.note}}', ctx), expected);
  t.is(await resolveValue('${Trigger.Payload.order.note}', ctx), expected);
  t.is(await resolveText('note: ${Trigger.Payload.order.note}', ctx), `note: ${expected}`);
  t.deepEqual(await resolveDeep({ n: '${Trigger.Payload.order}' }, ctx), { n: { ...JSON.parse(PAYLOAD_JSON).order } });
});

test('errors are FormulaErrors naming the formula', async (t) => {
  const ctx = makeContext();
  const syntax = await t.throwsAsync(resolveText('x ${Variables.x +} y', ctx), { instanceOf: FormulaError });
  t.is(syntax!.formula, '${Variables.x +}');
  t.true(syntax!.message.startsWith('Formula "${Variables.x +}" failed: '), syntax!.message);

  const runtime = await t.throwsAsync(resolveValue('${ "a" + 1 }', ctx), { instanceOf: FormulaError });
  t.regex(runtime!.reason, /T2001/);

  const unterminated = await t.throwsAsync(resolveValue('${ Variables.x', ctx), { instanceOf: FormulaError });
  t.regex(unterminated!.reason, /unterminated/);
});

test('error messages do not carry the evaluated data', async (t) => {
  const ctx = makeContext();
  for (const template of [
    '${ $number(Variables.secret) }',
    '${ -Variables.secret }',
    '${ $toMillis(Variables.secret) }',
  ]) {
    const error = await t.throwsAsync(resolveValue(template, ctx), { instanceOf: FormulaError }, template);
    t.false(error!.message.includes('hunter2'), error!.message);
  }
});

test('resolveDeep resolves strings at any depth and leaves keys and other values alone', async (t) => {
  const value = await resolveDeep(
    {
      id: '${Variables.orderId}',
      '${not.a.key}': 'k',
      nested: {
        list: ['{{Variables.count}}', '${Variables.obj}', 7, null, false],
        text: 'Order {{Trigger.Payload.order.id}}',
      },
    },
    makeContext(),
  );
  t.deepEqual(value, {
    id: 'A-1',
    '${not.a.key}': 'k',
    nested: { list: ['3', { k: 'v' }, 7, null, false], text: 'Order 42' },
  });
  t.is(await resolveDeep(5, makeContext()), 5);
});

test('resolveDeep keeps a member named __proto__ as data, as JSON.parse does', async (t) => {
  // The flow file's JSON gives the key as an own member; the resolved copy must too.
  const template = JSON.parse('{"__proto__": {"polluted": "${Variables.orderId}"}, "id": "x"}') as Record<
    string,
    unknown
  >;
  const value = (await resolveDeep(template, makeContext())) as Record<string, unknown>;
  t.is(Object.getPrototypeOf(value), Object.prototype);
  t.deepEqual(Object.keys(value), ['__proto__', 'id']);
  t.is(JSON.stringify(value), '{"__proto__":{"polluted":"A-1"},"id":"x"}');
  t.is((value as { polluted?: unknown }).polluted, undefined);
});

test('isTemplate tells templates from plain text', (t) => {
  t.true(isTemplate('${1}'));
  t.true(isTemplate('a {{b}}'));
  t.true(isTemplate('a ${ unterminated'));
  t.false(isTemplate('just $ { text } }}'));
});

test('checkTemplate reports problems without evaluating anything', (t) => {
  t.deepEqual(checkTemplate('Order {{Trigger.Payload.order.id}}: ${ $error("only at run time") }'), []);
  t.deepEqual(checkTemplate('no placeholders'), []);

  const expectOne = (template: string, pattern: RegExp) => {
    const problems = checkTemplate(template);
    t.is(problems.length, 1, `${template}: ${problems.join('; ')}`);
    t.regex(problems[0] ?? '', pattern, template);
  };
  expectOne('a ${ Variables.x', /unterminated "\$\{"/);
  expectOne('a {{ Variables.x', /unterminated "\{\{"/);
  expectOne('${ }', /empty formula/);
  expectOne('{{}}', /empty field/);
  expectOne('{{Variables.a-b.c d}}', /not a field path/);
  expectOne('x ${Variables.x +} y', /^Formula "\$\{Variables.x \+\}" failed: .*S0207/);

  t.is(checkTemplate('${(} {{}} ${1 +}').length, 3, 'every problem is reported');
});

test('$xmlEscape makes payload text safe inside XML; numbers become text, nothing stays nothing', async (t) => {
  t.is(
    await resolveText('<Sku>${ $xmlEscape(Trigger.Payload.sku) }</Sku>', withPayload({ sku: `<a & 'b' "c">` })),
    '<Sku>&lt;a &amp; &apos;b&apos; &quot;c&quot;&gt;</Sku>',
  );
  t.is(await resolveText('<Qty>${ $xmlEscape(Trigger.Payload.qty) }</Qty>', withPayload({ qty: 3 })), '<Qty>3</Qty>');
  t.is(await resolveText('<X>${ $xmlEscape(Trigger.Payload.missing) }</X>', withPayload({})), '<X></X>');
});

function withPayload(payload: Record<string, unknown>): FormulaContext {
  return {
    ...makeContext(),
    Trigger: { Payload: payload, PayloadJson: JSON.stringify(payload), Activity: 'a', Description: '' },
  };
}
