// The nonce the engine put into this page (engine/edges/console/console-assets.ts):
// the Content-Security-Policy allows the code editor's <style> elements only
// when they carry it. Browsers hide a nonce attribute's value from the DOM;
// the element's `nonce` property still holds it.
export const CSP_NONCE = document.querySelector<HTMLMetaElement>('meta[property="csp-nonce"]')?.nonce ?? '';
