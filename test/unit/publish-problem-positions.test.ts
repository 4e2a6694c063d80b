// The engine's publish problems name fields; `flow apply` puts the file's
// line and column in front of each one it can place.
import test from 'ava';
import { parseFlowText, parseFlowTextWithPositions } from '../../bin/cli/flow-file.ts';
import { placePublishProblems } from '../../bin/cli/publish-problem-positions.ts';
import { parseFieldPathText } from '../../flow/field-path.ts';

const FLOW = `company: C
name: f
trigger:
  webhook:
    activity: a
steps:
  - name: order
    set: { variables: { total: "\${ $sun(Trigger.Payload.x) }", order-id: "1" } }
  - if:
      condition: "\${ true }"
      then:
        - respond:
            body: "\${ Trigger.Paylod }"
`;

test('field paths parse into segments, the inverse of formatPath', (t) => {
  t.deepEqual(parseFieldPathText('steps[2].if.then[0].respond.body'), ['steps', 2, 'if', 'then', 0, 'respond', 'body']);
  t.deepEqual(parseFieldPathText('trigger.webhook.activity'), ['trigger', 'webhook', 'activity']);
  t.deepEqual(parseFieldPathText('steps[1].set.variables.order-id'), ['steps', 1, 'set', 'variables', 'order-id']);
  t.deepEqual(parseFieldPathText('steps[1].httpRequest.headers.2fa-Token'), [
    'steps',
    1,
    'httpRequest',
    'headers',
    '2fa-Token',
  ]);
  t.is(parseFieldPathText('Flow "f" v1 cannot be published'), undefined);
  t.is(parseFieldPathText('steps[x]'), undefined);
});

test('problems in a real flow file are placed at the field they name', (t) => {
  const { flow, positionOf } = parseFlowTextWithPositions('f.yaml', FLOW);
  t.is(flow.name, 'f');
  const message = [
    'Flow "f" v1 cannot be published:',
    '- steps[0].set.variables.total: Formula "${ $sun(Trigger.Payload.x) }" failed: unknown function $sun (did you mean $sum?)',
    '- steps[1].if.then[0].respond.body: Formula "${ Trigger.Paylod }" failed: "Trigger.Paylod" does not exist',
    '- steps[1].if.then[0].respond.statusCode: required',
    '- trigger.webhook.activity: "a" is used by another flow',
    '- name: already taken',
    // Neither a problem line nor a field: what a multi-line formula and a remark look like.
    'name: Trigger.Paylod } }" failed: …',
    '- Note: not a field',
  ].join('\n');
  t.is(
    placePublishProblems(message, 'f.yaml', positionOf),
    [
      'Flow "f" v1 cannot be published:',
      '- f.yaml:8:32: steps[0].set.variables.total: Formula "${ $sun(Trigger.Payload.x) }" failed: unknown function $sun (did you mean $sum?)',
      '- f.yaml:13:19: steps[1].if.then[0].respond.body: Formula "${ Trigger.Paylod }" failed: "Trigger.Paylod" does not exist',
      // A field the file leaves out is placed at the mapping that lacks it.
      '- f.yaml:13:13: steps[1].if.then[0].respond.statusCode: required',
      '- f.yaml:5:15: trigger.webhook.activity: "a" is used by another flow',
      '- f.yaml:2:7: name: already taken',
      'name: Trigger.Paylod } }" failed: …',
      '- Note: not a field',
    ].join('\n'),
  );
});

test('a lone problem is placed; one the file cannot place stays as it is', (t) => {
  // Only trigger fields are in this "file".
  const positionOf = (path: (string | number)[]) => (path[0] === 'trigger' ? { line: 3, col: 5 } : undefined);
  t.is(
    placePublishProblems('trigger.webhook.activity: taken', 'f.yaml', positionOf),
    'f.yaml:3:5: trigger.webhook.activity: taken',
  );
  const message = 'Flow "f" v1 cannot be published:\n- steps[7].respond: not in the file';
  t.is(placePublishProblems(message, 'f.yaml', positionOf), message);
});

test('keys written with their proto names are found under their JSON names', (t) => {
  const { positionOf } = parseFlowTextWithPositions(
    'f.yaml',
    'company: C\nname: f\ntrigger:\n  webhook:\n    activity: a\n    sync_timeout_seconds: 0\n',
  );
  t.deepEqual(positionOf(['trigger', 'webhook', 'syncTimeoutSeconds']), { line: 6, col: 27 });
});

test('JSON flow files are placed too', (t) => {
  const { positionOf } = parseFlowTextWithPositions(
    'f.json',
    '{\n  "company": "C",\n  "name": "f",\n  "trigger": { "webhook": { "activity": "a" } }\n}\n',
  );
  t.deepEqual(positionOf(['trigger', 'webhook', 'activity']), { line: 4, col: 41 });
});

test('parseFlowText keeps working for callers that need only the flow', (t) => {
  const flow = parseFlowText('x.yaml', 'company: C\nname: n\ntrigger:\n  webhook:\n    activity: a\n');
  t.is(flow.name, 'n');
});
