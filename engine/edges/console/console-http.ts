// What every answer of the console's listener carries, and its two plain HTML
// pages (the sign-in problem page of OpenID Connect, and the page shown while
// the console's bundle is not built). The Content-Security-Policy allows
// scripts, styles, images and calls of the console's own origin only: no
// inline script, no eval, no framing. The one exception is the styles the
// code editor adds as <style> elements (CodeMirror's style-mod): allowed by a
// nonce made fresh for every page, which the page hands the editor.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';

/** In the built index.html where the page's nonce goes (console/vite.config.ts writes it there). */
export const CSP_NONCE_PLACEHOLDER = 'console-csp-nonce-placeholder';

export function consoleCsp(styleNonce?: string): string {
  const styles = styleNonce ? `'self' 'nonce-${styleNonce}'` : "'self'";
  return (
    `default-src 'self'; script-src 'self'; style-src ${styles}; img-src 'self' data:; font-src 'self'; connect-src 'self'; ` +
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
  );
}

export const CONSOLE_CSP = consoleCsp();

/** A page's own nonce: 128 random bits, base64. */
export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/** `same-origin`, not `no-referrer`: under no-referrer a page's POSTs carry `Origin: null`, and the gate could not tell our page from another. */
export function securityHeaders(secure: boolean): Record<string, string> {
  return {
    'content-security-policy': CONSOLE_CSP,
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'same-origin',
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
    ...(secure ? { 'strict-transport-security': 'max-age=31536000' } : {}),
  };
}

export function sendHtml(res: ServerResponse, status: number, html: string, headers: Record<string, string>): void {
  res.writeHead(status, { ...headers, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(html);
}

export function sendText(res: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}

/** A plain page with a heading, one paragraph and a link home; every value escaped. */
export function plainPage(title: string, message: string, link: { href: string; text: string }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)} · flowhook console</title></head>
<body><main><h1>${escape(title)}</h1><p>${escape(message)}</p><p><a href="${escape(link.href)}">${escape(link.text)}</a></p></main></body></html>
`;
}

function escape(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
