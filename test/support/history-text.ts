// An execution's history as an operator reads it: `temporal workflow show
// --output json`, followed by every base64 `data` and `encoding` field
// decoded — what the doNotLogPayload tests scan for anything in clear.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { testInfrastructure } from './stack.ts';

export async function historyText(workflowId: string): Promise<string> {
  const { temporalAddress, temporalCli } = testInfrastructure();
  const { stdout } = await promisify(execFile)(
    temporalCli,
    ['workflow', 'show', '--workflow-id', workflowId, '--address', temporalAddress, '--output', 'json'],
    {
      maxBuffer: 16 * 1024 * 1024,
    },
  );
  const decoded: string[] = [];
  JSON.parse(stdout, (key, value) => {
    if (typeof value === 'string' && (key === 'data' || key === 'encoding'))
      decoded.push(Buffer.from(value, 'base64').toString('utf8'));
    return value;
  });
  return `${stdout}\n${decoded.join('\n')}`;
}
