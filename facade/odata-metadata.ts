// The service's CSDL document (`$metadata`), so OData tooling can discover the
// endpoint and clients can be generated from it. Like the host platform, the
// codeunit function is an unbound action in the `NAV` namespace, imported into
// the default container.
//
// The declared parameter types are what the endpoint accepts (spec §2.1):
// `activity` and `secret` are strings, `payload` is arbitrary JSON. It is
// declared `Edm.Untyped` — any JSON value, passed as is — because a client
// generated from `Edm.String` would send the payload as a JSON *string*, which
// the endpoint refuses (it must be an object). An open complex type was the
// other candidate, but OData 4.0 wants nested values of dynamic properties
// type-annotated and their names to be identifiers; arbitrary JSON is neither.
// Edm.Untyped exists since CSDL 4.01, so the document says Version="4.01" and
// is served with `OData-Version: 4.01`. The webhook answer stays a 4.0 payload
// (`OData-Version: 4.0`, DESIGN "The endpoint"): an Edm.String value is the
// same in both versions, and a 4.01 service may answer in 4.0.
//
// The late answer of a call (answer-route.ts) is an unbound *function*: it
// reads and changes nothing, so OData calls it with GET and its parameter in
// the path — `flowWebhook_Answer(executionId='…')`. It returns the same
// Edm.String (JSON text of statusCode, contentType, body) as the action.

export const METADATA_CONTENT_TYPE = 'application/xml';

/** The CSDL version of the document, also the `OData-Version` header of `$metadata`. */
export const METADATA_ODATA_VERSION = '4.01';

export const WEBHOOK_ACTION = 'flowWebhook_Invoke';
export const ANSWER_FUNCTION = 'flowWebhook_Answer';

/** Parameter names and types of the action, in the order of the request body (spec §2.1). */
export const WEBHOOK_PARAMETERS: ReadonlyArray<{ name: string; type: string }> = [
  { name: 'activity', type: 'Edm.String' },
  { name: 'secret', type: 'Edm.String' },
  { name: 'payload', type: 'Edm.Untyped' },
];

export function odataMetadataXml(): string {
  const parameters = WEBHOOK_PARAMETERS.map(({ name, type }) => `        <Parameter Name="${name}" Type="${type}" Nullable="false" />`).join('\n');
  return `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="${METADATA_ODATA_VERSION}" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
  <edmx:DataServices>
    <Schema Namespace="NAV" xmlns="http://docs.oasis-open.org/odata/ns/edm">
      <Action Name="${WEBHOOK_ACTION}" IsBound="false">
${parameters}
        <ReturnType Type="Edm.String" />
      </Action>
      <Function Name="${ANSWER_FUNCTION}" IsBound="false" IsComposable="false">
        <Parameter Name="executionId" Type="Edm.String" Nullable="false" />
        <ReturnType Type="Edm.String" />
      </Function>
      <EntityContainer Name="NAV">
        <ActionImport Name="${WEBHOOK_ACTION}" Action="NAV.${WEBHOOK_ACTION}" />
        <FunctionImport Name="${ANSWER_FUNCTION}" Function="NAV.${ANSWER_FUNCTION}" />
      </EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>
`;
}
