// The service's CSDL document (`$metadata`), so OData tooling can discover the
// endpoint and clients can be generated from it. Like the host platform, the
// codeunit function is an unbound action in the `NAV` namespace, imported into
// the default container.
//
// The declared parameter types are what the endpoint accepts:
// `activity` and `secret` are strings, `payload` is arbitrary JSON. It is
// declared `Edm.Untyped` — any JSON value, passed as is — because a client
// generated from `Edm.String` would send the payload as a JSON *string*, which
// the endpoint refuses (it must be an object). An open complex type was the
// other candidate, but OData 4.0 wants nested values of dynamic properties
// type-annotated and their names to be identifiers; arbitrary JSON is neither.
// Edm.Untyped exists since CSDL 4.01, so the document says Version="4.01" and
// is served with `OData-Version: 4.01`. The webhook answer stays a 4.0 payload
// (`OData-Version: 4.0`, as callers of the host platform expect): an Edm.String value is the
// same in both versions, and a 4.01 service may answer in 4.0.
//
// The late answer of a call (answer-route.ts) is an unbound *function*: it
// reads and changes nothing, so OData calls it with GET and its parameter in
// the path — `flowWebhook_Answer(executionId='…')`. It returns the same
// Edm.String (JSON text of statusCode, contentType, body) as the action.
//
// flowWebhook_Resume (resume-route.ts) is a second unbound action: it resumes
// the waitForCallback step that waits for `key`, authenticated like the first.
// Its `payload` may be any JSON value and may be left out (the step then gets
// `{}`), so it is Edm.Untyped and nullable. It answers a structured value
// (`received`, `executionId`); a named complex type would be one more schema
// element for clients to generate, for two fields, so the return type is the
// abstract Edm.ComplexType, which CSDL allows for operation results.

export const METADATA_CONTENT_TYPE = 'application/xml';

/** The CSDL version of the document, also the `OData-Version` header of `$metadata`. */
export const METADATA_ODATA_VERSION = '4.01';

export const WEBHOOK_ACTION = 'flowWebhook_Invoke';
export const ANSWER_FUNCTION = 'flowWebhook_Answer';
export const RESUME_ACTION = 'flowWebhook_Resume';
/** What flowWebhook_Resume returns, also the fragment of its answer's `@odata.context`. */
export const RESUME_RESULT_TYPE = 'Edm.ComplexType';

/** Parameter names and types of the action, in the order of the request body ({activity, secret, payload}). */
export const WEBHOOK_PARAMETERS: ReadonlyArray<{ name: string; type: string }> = [
  { name: 'activity', type: 'Edm.String' },
  { name: 'secret', type: 'Edm.String' },
  { name: 'payload', type: 'Edm.Untyped' },
];

/** Parameters of the resume action, in the order of its request body; `payload` may be absent or null. */
export const RESUME_PARAMETERS: ReadonlyArray<{ name: string; type: string; nullable?: boolean }> = [
  { name: 'activity', type: 'Edm.String' },
  { name: 'secret', type: 'Edm.String' },
  { name: 'key', type: 'Edm.String' },
  { name: 'payload', type: 'Edm.Untyped', nullable: true },
];

function parameterElements(parameters: ReadonlyArray<{ name: string; type: string; nullable?: boolean }>): string {
  return parameters
    .map(
      ({ name, type, nullable }) =>
        `        <Parameter Name="${name}" Type="${type}" Nullable="${nullable === true}" />`,
    )
    .join('\n');
}

export function odataMetadataXml(): string {
  const parameters = parameterElements(WEBHOOK_PARAMETERS);
  return `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="${METADATA_ODATA_VERSION}" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
  <edmx:DataServices>
    <Schema Namespace="NAV" xmlns="http://docs.oasis-open.org/odata/ns/edm">
      <Action Name="${WEBHOOK_ACTION}" IsBound="false">
${parameters}
        <ReturnType Type="Edm.String" />
      </Action>
      <Action Name="${RESUME_ACTION}" IsBound="false">
${parameterElements(RESUME_PARAMETERS)}
        <ReturnType Type="${RESUME_RESULT_TYPE}" />
      </Action>
      <Function Name="${ANSWER_FUNCTION}" IsBound="false" IsComposable="false">
        <Parameter Name="executionId" Type="Edm.String" Nullable="false" />
        <ReturnType Type="Edm.String" />
      </Function>
      <EntityContainer Name="NAV">
        <ActionImport Name="${WEBHOOK_ACTION}" Action="NAV.${WEBHOOK_ACTION}" />
        <ActionImport Name="${RESUME_ACTION}" Action="NAV.${RESUME_ACTION}" />
        <FunctionImport Name="${ANSWER_FUNCTION}" Function="NAV.${ANSWER_FUNCTION}" />
      </EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>
`;
}
