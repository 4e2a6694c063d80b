// Where callers reach the facade when FLOWHOOK_PUBLIC_URL is unset: the facade itself on this
// host. The engine needs it too (the flow card's Webhook Call URL), from the same variables.

export function defaultPublicUrl(facadePort: number, secure = false): string {
  return `${secure ? 'https' : 'http'}://localhost:${facadePort}`;
}
