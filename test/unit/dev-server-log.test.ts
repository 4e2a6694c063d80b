import test from 'ava';
import { forwardErrors } from '../../bin/embedded/temporal-dev-server.ts';

function forwarded(line: string): string[] {
  const seen: string[] = [];
  forwardErrors(line, (message) => seen.push(message));
  return seen;
}

test('error-level records are forwarded with their error; warnings and info are not', (t) => {
  t.deepEqual(forwarded(JSON.stringify({ level: 'error', msg: 'persistence failed', error: 'disk full' })), [
    'temporal: persistence failed: disk full',
  ]);
  t.deepEqual(forwarded(JSON.stringify({ level: 'fatal', msg: 'cannot bind' })), ['temporal: cannot bind']);
  t.deepEqual(forwarded(JSON.stringify({ level: 'warn', msg: 'slow' })), []);
  t.deepEqual(forwarded(JSON.stringify({ level: 'info', msg: 'started' })), []);
});

test('a shard changing hands is retried by the server and not forwarded', (t) => {
  t.deepEqual(
    forwarded(
      JSON.stringify({ level: 'error', msg: 'Queue reader unable to retrieve tasks', error: 'shard status unknown' }),
    ),
    [],
  );
  t.deepEqual(
    forwarded(
      JSON.stringify({
        level: 'error',
        msg: 'Queue reader unable to retrieve tasks',
        error: 'context deadline exceeded',
      }),
    ),
    ['temporal: Queue reader unable to retrieve tasks: context deadline exceeded'],
  );
});

test('lines that are not log records are forwarded only when they read like a failure', (t) => {
  t.deepEqual(forwarded('Error: failed to start server'), ['temporal: Error: failed to start server']);
  t.deepEqual(forwarded('starting up'), []);
});
