// The OData shapes the caller sees: the envelope {@odata.context, value}. The
// success envelope's `value` is a *string* holding JSON, so callers parse twice;
// the outer status is 200 whatever status the flow chose.

export const ODATA_JSON_CONTENT_TYPE = 'application/json; odata.metadata=minimal';
export const ODATA_VERSION = '4.0';

/** What the flow answered: the three fields serialised into `value`. */
export interface FlowResponse {
  statusCode: number;
  contentType: string;
  body: string;
}

export interface EnvelopeTarget {
  /** Base URL as callers see it, without a trailing slash. */
  publicUrl: string;
  instance: string;
}

export function metadataUrl(target: EnvelopeTarget): string {
  return `${target.publicUrl}/${target.instance}/ODataV4/$metadata`;
}

/** The response body text of a successful call. */
export function webhookEnvelope(target: EnvelopeTarget, response: FlowResponse): string {
  // Built field by field so the key order inside `value` is the contract's,
  // whatever order the response object was created in.
  const value = JSON.stringify({
    statusCode: response.statusCode,
    contentType: response.contentType,
    body: response.body,
  });
  return JSON.stringify({ '@odata.context': `${metadataUrl(target)}#Edm.String`, value });
}

/** The OData JSON error body used for every failure except 401. */
export function odataError(code: string, message: string): string {
  return JSON.stringify({ error: { code, message } });
}
