// `flowhook temporal …` runs the Temporal CLI start uses, with every argument
// passed on unchanged (its own --help and --version too), against the Temporal
// that TEMPORAL_ADDRESS names (start's dev server by default), and exits with its code.
import test from 'ava';
import { spawn } from 'node:child_process';
import { FLOWHOOK } from '../support/flowhook-start.ts';
import { testInfrastructure } from '../support/stack.ts';

function flowhook(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [FLOWHOOK, 'temporal', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => void (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => void (err += chunk.toString()));
    child.on('exit', (code) => resolve({ code, out, err }));
  });
}

test('flowhook temporal passes every argument to the Temporal CLI and returns its exit code', async (t) => {
  const { temporalCli, temporalAddress } = testInfrastructure();
  const env = { ...process.env, TEMPORAL_CLI: temporalCli, TEMPORAL_ADDRESS: temporalAddress };
  const version = await flowhook(['--version'], env);
  t.is(version.code, 0, version.err);
  t.regex(version.out, /^temporal version \d+\.\d+\.\d+/);
  const help = await flowhook(['workflow', 'list', '--help'], env);
  t.regex(help.out, /--query/);
  const listed = await flowhook(['workflow', 'list', '--limit', '1', '--output', 'json'], env);
  t.is(listed.code, 0, listed.err);
  const unknown = await flowhook(['no-such-command'], env);
  t.not(unknown.code, 0);
});
