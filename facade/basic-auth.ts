// Reads Basic credentials (RFC 7617) from an Authorization header: the service
// user name and web service access key of the Basic path. The facade does not check them;
// the engine verifies the key against its database.
import { hasControlCharacter } from '../common/control-characters.ts';

export interface BasicCredentials {
  userName: string;
  accessKey: string;
}

// Strict base64 (standard alphabet, correct padding): anything looser is a malformed header.
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** The credentials of a `Basic` header, or undefined when the header is absent or malformed. */
export function parseBasicAuthorization(header: string | undefined): BasicCredentials | undefined {
  if (!header) return undefined;
  const match = /^basic[ \t]+(\S+)[ \t]*$/i.exec(header);
  const token = match?.[1];
  if (!token || !BASE64.test(token)) return undefined;
  const decoded = Buffer.from(token, 'base64').toString('utf8');
  // The user name cannot contain a colon (RFC 7617 §2); the key may.
  const colon = decoded.indexOf(':');
  if (colon <= 0) return undefined;
  const userName = decoded.slice(0, colon);
  const accessKey = decoded.slice(colon + 1);
  if (!accessKey || hasControlCharacter(decoded) || decoded.includes('\ufffd')) return undefined;
  return { userName, accessKey };
}
