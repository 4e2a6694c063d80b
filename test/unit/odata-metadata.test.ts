// `$metadata` is a CSDL 4.01 document that declares what the endpoint accepts
// (payload: Edm.Untyped, any JSON), and the CSDL checker the e2e test relies
// on finds the mistakes it is there to find.
import test from 'ava';
import {
  ANSWER_FUNCTION,
  odataMetadataXml,
  METADATA_ODATA_VERSION,
  WEBHOOK_ACTION,
} from '../../facade/odata-metadata.ts';
import { actionImportSignature, checkCsdl, functionImportSignature } from '../support/csdl-check.ts';

const xml = odataMetadataXml();

test('$metadata conforms to CSDL XML 4.01 as far as the checker knows it', (t) => {
  t.deepEqual(checkCsdl(xml), []);
  t.is(METADATA_ODATA_VERSION, '4.01');
});

test('the action import declares string activity and secret, untyped payload, a string result', (t) => {
  t.deepEqual(actionImportSignature(xml, WEBHOOK_ACTION), {
    parameters: [
      { name: 'activity', type: 'Edm.String', nullable: false },
      { name: 'secret', type: 'Edm.String', nullable: false },
      { name: 'payload', type: 'Edm.Untyped', nullable: false },
    ],
    returnType: 'Edm.String',
  });
});

test('the checker refuses Edm.Untyped in a document that says Version 4.0', (t) => {
  const problems = checkCsdl(xml.replace('Version="4.01"', 'Version="4.0"'));
  t.deepEqual(problems, [
    'Parameter payload of flowWebhook_Invoke: Edm.Untyped exists only in CSDL 4.01, the document says Version 4.0',
    'Parameter payload of flowWebhook_Resume: Edm.Untyped exists only in CSDL 4.01, the document says Version 4.0',
  ]);
});

test('the checker refuses other versions, unknown types, dangling imports, stray attributes and broken XML', (t) => {
  t.deepEqual(checkCsdl(xml.replace('Version="4.01"', 'Version="4.1"')), [
    'edmx:Edmx Version must be 4.0 or 4.01, found 4.1',
    'Parameter payload of flowWebhook_Invoke: Edm.Untyped exists only in CSDL 4.01, the document says Version 4.1',
    'Parameter payload of flowWebhook_Resume: Edm.Untyped exists only in CSDL 4.01, the document says Version 4.1',
  ]);
  t.deepEqual(checkCsdl(xml.replace('Type="Edm.String" Nullable', 'Type="Edm.Text" Nullable')), [
    'Parameter activity of flowWebhook_Invoke: Edm.Text is not a type of CSDL',
  ]);
  t.deepEqual(checkCsdl(xml.replace('Action="NAV.flowWebhook_Invoke"', 'Action="NAV.other"')), [
    'ActionImport flowWebhook_Invoke: Action "NAV.other" names no unbound action of the model',
  ]);
  t.deepEqual(checkCsdl(xml.replace('IsBound="false"', 'IsBound="no"')), [
    'Action flowWebhook_Invoke: IsBound must be true or false, found "no"',
  ]);
  t.deepEqual(checkCsdl(xml.replace('<ReturnType Type="Edm.String" />', '<ReturnType Type="Edm.String" Kind="x" />')), [
    'ReturnType: attribute Kind is not allowed',
  ]);
  t.deepEqual(checkCsdl(xml.replace('xmlns="http://docs.oasis-open.org/odata/ns/edm"', 'xmlns="urn:other"')), [
    'edmx:DataServices may only contain Schema elements in http://docs.oasis-open.org/odata/ns/edm, found Schema in urn:other',
  ]);
  t.regex(checkCsdl(xml.replace('</Action>', ''))[0] ?? '', /^not well-formed XML: /);
});

test('parameter order and the unbound-overload rule are checked', (t) => {
  const returnFirst = xml
    .replace(/(\s*<ReturnType Type="Edm.String" \/>)/, '')
    .replace(
      '<Action Name="flowWebhook_Invoke" IsBound="false">',
      '<Action Name="flowWebhook_Invoke" IsBound="false">\n        <ReturnType Type="Edm.String" />',
    );
  t.deepEqual(checkCsdl(returnFirst), ['Action flowWebhook_Invoke: Parameter after ReturnType']);
  const action = /<Action [\s\S]*?<\/Action>/.exec(xml)![0];
  t.deepEqual(checkCsdl(xml.replace(action, `${action}\n${action}`)), [
    'unbound action NAV.flowWebhook_Invoke is declared twice',
  ]);
});

test('the late-answer function import takes the execution id and returns the same string as the action', (t) => {
  t.deepEqual(functionImportSignature(xml, ANSWER_FUNCTION), {
    parameters: [{ name: 'executionId', type: 'Edm.String', nullable: false }],
    returnType: 'Edm.String',
  });
});

test('the checker looks into functions and function imports too', (t) => {
  const fn = /<Function [\s\S]*?<\/Function>/.exec(xml)![0];
  t.deepEqual(checkCsdl(xml.replace(fn, fn.replace(/\s*<ReturnType Type="Edm.String" \/>/, ''))), [
    'Function flowWebhook_Answer: a ReturnType is required',
  ]);
  t.deepEqual(checkCsdl(xml.replace('IsComposable="false"', 'IsComposable="maybe"')), [
    'Function flowWebhook_Answer: IsComposable must be true or false, found "maybe"',
  ]);
  t.deepEqual(checkCsdl(xml.replace('Function="NAV.flowWebhook_Answer"', 'Function="NAV.other"')), [
    'FunctionImport flowWebhook_Answer: Function "NAV.other" names no unbound function of the model',
  ]);
  t.deepEqual(checkCsdl(xml.replace(fn, `${fn}\n${fn}`)), [
    'unbound function NAV.flowWebhook_Answer is declared twice with the same parameter names',
  ]);
  t.deepEqual(checkCsdl(xml.replace('<Parameter Name="executionId"', '<Parameter Name="execution id"')), [
    'Parameter of flowWebhook_Answer: Name "execution id" is not a simple identifier',
  ]);
});
