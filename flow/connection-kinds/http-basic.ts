// The `Basic` credentials of RFC 7617: user and password joined by ":" as
// UTF-8, in base64. Written without Buffer, which kind modules do not use (they
// load wherever flow/ loads).

export function basicCredentials(user: string, password: string): string {
  let binary = '';
  for (const byte of new TextEncoder().encode(`${user}:${password}`)) binary += String.fromCharCode(byte);
  return btoa(binary);
}
