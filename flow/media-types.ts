// Which request bodies the provider route treats as JSON: decided once, for the
// engine (depth check before starting) and the workflow (Trigger.Json) alike.

/** application/json, text/json and structured-syntax types such as application/vnd.api+json (a lower-cased media type, no parameters). */
export function isJsonMediaType(mediaType: string): boolean {
  return /^(application|text)\/([a-z0-9!#$&^_.-]+\+)?json$/.test(mediaType);
}

export const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';
