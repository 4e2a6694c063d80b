// The service's CSDL document (`$metadata`), so OData tooling can discover the
// endpoint. Like the host platform, the codeunit function is an unbound action
// in the `NAV` namespace, imported into the default container. Parameters are
// declared as Edm.String, as the host platform declares text parameters.

export const METADATA_CONTENT_TYPE = 'application/xml';

export const WEBHOOK_ACTION = 'flowWebhook_Invoke';

const PARAMETERS = ['activity', 'secret', 'payload'];

export function odataMetadataXml(): string {
  const parameters = PARAMETERS.map((name) => `        <Parameter Name="${name}" Type="Edm.String" Nullable="false" />`).join('\n');
  return `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
  <edmx:DataServices>
    <Schema Namespace="NAV" xmlns="http://docs.oasis-open.org/odata/ns/edm">
      <Action Name="${WEBHOOK_ACTION}" IsBound="false">
${parameters}
        <ReturnType Type="Edm.String" />
      </Action>
      <EntityContainer Name="NAV">
        <ActionImport Name="${WEBHOOK_ACTION}" Action="NAV.${WEBHOOK_ACTION}" />
      </EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>
`;
}
