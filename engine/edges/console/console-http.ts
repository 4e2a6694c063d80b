// What every answer of the console's listener carries, and its two plain HTML
// pages (the sign-in problem page of OpenID Connect, and the page shown while
// the console's bundle is not built). The Content-Security-Policy allows
// scripts, styles, images and calls of the console's own origin only: no
// inline script, no eval, no framing. The one exception is the styles the
// code editor adds as <style> elements (CodeMirror's style-mod): allowed by a
// nonce made fresh for every page, which the page hands the editor.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { escapeHtml, pageHeaders } from '../http/http-answers.ts';

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

/** What every answer carries: a page's headers (the gate's origin checks need `same-origin` referrers), isolation, no powerful features, HSTS under TLS. */
export function securityHeaders(secure: boolean): Record<string, string> {
  return {
    ...pageHeaders(CONSOLE_CSP),
    'cross-origin-opener-policy': 'same-origin',
    'cross-origin-resource-policy': 'same-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=()',
    ...(secure ? { 'strict-transport-security': 'max-age=31536000' } : {}),
  };
}

/** A page, never cached. The console's own answers, unlike the codec server's (http-answers.ts), are sent without a length. */
export function sendHtml(res: ServerResponse, status: number, html: string, headers: Record<string, string>): void {
  res.writeHead(status, { ...headers, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
  res.end(html);
}

export function sendText(
  res: ServerResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { ...headers, 'content-type': 'text/plain; charset=utf-8' });
  res.end(text);
}

/** A plain page with a heading, one paragraph and a link home; every value escaped. */
export function plainPage(title: string, message: string, link: { href: string; text: string }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)} · flowhook console</title></head>
<body><main><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p><p><a href="${escapeHtml(link.href)}">${escapeHtml(link.text)}</a></p></main></body></html>
`;
}
