import type { FastifyReply } from 'fastify';
import { CHECKOUT_STYLE } from './checkout-assets';
import { CONSENT_STYLE } from './consent-assets';

/** What customer pages share: escaping, data handed to the page script, and the security headers. */

export const escapeHtml = (text: unknown): string =>
  String(text).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/**
 * An alias as a public page shows it: "amina.salem@alpha" -> "am***@alpha". The customer recognises
 * it; someone holding only the link learns little (the mandate id is the page's only capability).
 */
export function maskAlias(alias: string): string {
  const at = alias.indexOf('@');
  const handle = Array.from(at < 0 ? alias : alias.slice(0, at));
  const shown = handle.slice(0, handle.length > 3 ? 2 : 1).join('');
  return `${shown}***${at < 0 ? '' : alias.slice(at)}`;
}

/**
 * The TEST badge a page of a test object carries (livemode false: a test merchant's session or
 * mandate, a test TPP's consent or order), with what it means for the person on the page; a live
 * object's page carries none, as on Stripe's hosted pages.
 */
export function testBadge(livemode: boolean, meaning: string): string {
  return livemode
    ? ''
    : `<p class="test-badge" id="test-badge" data-world="test"><strong class="badge">TEST</strong> <span>${escapeHtml(meaning)}</span></p>`;
}

/** Data for the page script, safe inside <script type="application/json">: no `<` can close the element. */
export const jsonForScript = (value: unknown): string =>
  JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');

/**
 * CSP with a per-response nonce (no inline code without it), no framing, no referrer, no caching.
 * `formTargets`: where a form may lead besides this origin. Chromium applies form-action to the
 * redirects that follow a form post too, so a form answered 303 to another site must name it.
 */
export function securityHeaders(reply: FastifyReply, nonce: string, formTargets: readonly string[] = []): void {
  const formAction = ["'self'", ...formTargets].join(' ');
  reply
    .header(
      'content-security-policy',
      `default-src 'none'; script-src 'nonce-${nonce}'; style-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self' data:; form-action ${formAction}; base-uri 'none'; frame-ancestors 'none'`,
    )
    .header('x-frame-options', 'DENY')
    .header('referrer-policy', 'no-referrer')
    .header('cache-control', 'no-store')
    .header('x-content-type-options', 'nosniff');
}

/** A customer page with one card and a plain form (the SCA and mandate confirmation pages): self-contained, no script. */
export function cardPage(title: string, body: string, nonce: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style nonce="${nonce}">${CHECKOUT_STYLE}${CONSENT_STYLE}</style></head>
<body><main class="card">${body}</main></body></html>`;
}
