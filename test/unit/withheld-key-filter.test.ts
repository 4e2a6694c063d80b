// The execution list's key filter and withheld keys: a doNotLogPayload flow's
// key is shown as its label (`#` and an HMAC), and the filter finds it only by
// the key itself — typing the label, or a label with a quote Temporal's SQL
// stores would drop, matches nothing but the key of that text.
import test from 'ava';
import { keyLabel, keyLabels } from '../../engine/domain/flow-control/coordinator-ids.ts';
import { filterClauses } from '../../engine/domain/executions/visibility-query.ts';

const secret = Buffer.alloc(32, 9);

test('the filter for a typed label looks for that label only as the label of its own text', (t) => {
  const label = keyLabel(secret, 'CARD-4242', true);
  t.regex(label, /^#[A-Za-z0-9_-]{16}$/);
  t.true(keyLabels(secret, 'CARD-4242').includes(label), 'the key itself finds it');
  for (const typed of [label, `${label}'`, `${label}"`, `${label}\\`]) {
    t.false(keyLabels(secret, typed).includes(label), typed);
    t.false(filterClauses({ keyLabels: keyLabels(secret, typed) })[0]!.includes(label), typed);
  }
});

test("a key that has a label's form, or holds a quote or backslash, is labelled in every flow", (t) => {
  for (const key of ['#AAAAAAAAAAAAAAAA', "INV-7'", 'say "hi"', 'a\\b']) {
    t.regex(keyLabel(secret, key, false), /^#[A-Za-z0-9_-]{16}$/, key);
    t.deepEqual(keyLabels(secret, key), [keyLabel(secret, key, true)], key);
  }
  for (const key of ['INV-7', '#INV-7', '#AAAAAAAAAAAAAAAAA'])
    t.is(keyLabel(secret, key, false), key, `${key} is shown as it is`);
});
