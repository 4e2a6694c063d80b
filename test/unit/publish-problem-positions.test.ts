// The engine's publish problems name fields; `flow apply` puts the file's
// line and column in front of each one it can place.
import test from 'ava';
import { parseFlowText } from '../../bin/cli/flow-file.ts';
import { parseFieldPathText, placePublishProblems } from '../../bin/cli/publish-problem-positions.ts';

test('field paths parse into segments', (t) => {
  t.deepEqual(parseFieldPathText('steps[2].if.then[0].respond.body'), ['steps', 2, 'if', 'then', 0, 'respond', 'body']);
  t.deepEqual(parseFieldPathText('trigger.webhook.activity'), ['trigger', 'webhook', 'activity']);
});

test('problem lines get file:line:col; other lines stay as they are', (t) => {
  const lines: Record<string, { line: number; col: number }> = { 'steps,1,log,message': { line: 9, col: 18 }, 'trigger,webhook,activity': { line: 5, col: 15 } };
  const positionOf = (path: (string | number)[]) => lines[path.join(',')];
  const message = 'Flow "f" v1 cannot be published:\n- steps[1].log.message: Formula "x" failed: unknown function $exist\n- steps[7].respond: not in the file';
  t.is(
    placePublishProblems(message, 'f.yaml', positionOf),
    'Flow "f" v1 cannot be published:\n- f.yaml:9:18: steps[1].log.message: Formula "x" failed: unknown function $exist\n- steps[7].respond: not in the file',
  );
  t.is(placePublishProblems('trigger.webhook.activity: "a" is already published', 'f.yaml', positionOf), 'f.yaml:5:15: trigger.webhook.activity: "a" is already published');
});

test('parseFlowText keeps working for callers that need only the flow', (t) => {
  const flow = parseFlowText('x.yaml', 'company: C\nname: n\ntrigger:\n  webhook:\n    activity: a\n');
  t.is(flow.name, 'n');
});
