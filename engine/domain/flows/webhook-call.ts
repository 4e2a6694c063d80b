// The flow card's "Webhook Call" section, shown once the flow is published: the resolved endpoint
// URL (company URL-encoded) and a sample body with a placeholder for the secret.
export function webhookCall(base: { publicUrl: string; instance: string }, company: string, activity: string) {
  const url = `${base.publicUrl}/${encodeURIComponent(base.instance)}/ODataV4/flowWebhook_Invoke?company=${encodeURIComponent(company)}`;
  const sampleBody = JSON.stringify({ activity, secret: '<secret>', payload: {} });
  return { url, method: 'POST', sampleBody };
}

/** The provider route of a flow with `trigger.webhook.direct` (facade: POST /:instance/hooks/:company/:activity). */
export function providerRouteUrl(
  base: { publicUrl: string; instance: string },
  company: string,
  activity: string,
): string {
  return `${base.publicUrl}/${encodeURIComponent(base.instance)}/hooks/${encodeURIComponent(company)}/${encodeURIComponent(activity)}`;
}
