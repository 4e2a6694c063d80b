// The execution grant's format: an HMAC over execution id, company and a
// random run mark (g2), read back only for the execution and company it was
// minted for; g1 grants (no run mark) of executions started before marks
// still read.
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { hmacOf } from '../../engine/domain/callers/deployment-keys.ts';
import { mintExecutionGrant, readExecutionGrant } from '../../engine/domain/executions/execution-grants.ts';

const key = randomBytes(32);
const ID = 'payments.callback:0f8fad5b-d9cb-469f-a165-70867728950e';

test('a minted grant reads back for its execution and company, with the run mark that goes into the memo', (t) => {
  const minted = mintExecutionGrant(key, ID, 'Acme');
  t.regex(minted.grant, /^g2\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
  t.true(minted.grant.startsWith(`g2.${minted.runMark}.`));
  t.deepEqual(readExecutionGrant(key, ID, 'Acme', minted.grant), { runMark: minted.runMark });
  t.not(mintExecutionGrant(key, ID, 'Acme').runMark, minted.runMark, 'every start gets its own mark');
});

test('a grant is nothing for another execution, company or key, or with its run mark changed', (t) => {
  const { grant, runMark } = mintExecutionGrant(key, ID, 'Acme');
  t.is(readExecutionGrant(key, `${ID}x`, 'Acme', grant), undefined);
  t.is(readExecutionGrant(key, ID, 'Beta', grant), undefined);
  t.is(readExecutionGrant(randomBytes(32), ID, 'Acme', grant), undefined);
  const otherMark = randomBytes(16).toString('base64url');
  t.is(readExecutionGrant(key, ID, 'Acme', grant.replace(runMark, otherMark)), undefined);
  // Parts cannot run into each other: the id's end moved into the company is another grant.
  t.is(readExecutionGrant(key, ID.slice(0, -1), `${ID.slice(-1)}\nAcme`, grant), undefined);
});

test('g1 grants (before run marks) still read, with no mark', (t) => {
  const legacy = `g1.${hmacOf(key, ['g1', ID, 'Acme'])}`;
  t.deepEqual(readExecutionGrant(key, ID, 'Acme', legacy), { runMark: undefined });
  t.is(readExecutionGrant(key, ID, 'Beta', legacy), undefined);
});

test('malformed grants are nothing', (t) => {
  const { grant, runMark } = mintExecutionGrant(key, ID, 'Acme');
  const mac = grant.split('.')[2]!;
  for (const malformed of [
    '',
    'g1',
    'g1.',
    'g2',
    `g2.${runMark}`,
    `g2.${runMark}.`,
    `g3.${runMark}.${mac}`,
    `g2.short.${mac}`,
    `${grant}.x`,
    `g1.${runMark}.${mac}`,
    `G2.${runMark}.${mac}`,
  ]) {
    t.is(readExecutionGrant(key, ID, 'Acme', malformed), undefined, malformed);
  }
});
