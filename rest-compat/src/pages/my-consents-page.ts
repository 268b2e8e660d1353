import { randomBytes } from 'node:crypto';
import type { Logger } from '@gateway/kernel';
import type { Execute } from '../executor';
import { passBackRouterHeaders } from '../headers';
import type { PageHandler } from '../register-routes';
import { REFUSALS, SCOPE_WORDS, vrpLimitLines, type VrpPageTerms } from './consent-page';
import { cardPage, escapeHtml, securityHeaders } from './html';

/** The signed-in customer's consents, with the visit's token. */
const MY_CONSENTS = `query MyConsentsPage($token: String!) {
  customerConsents(token: $token) {
    id tppName kind scopes authorisedAt expiresAt
    vrp { creditor { type value } currency reference maximumIndividualAmount periodicLimits { periodType periodAlignment amount } validFrom validTo }
  }
}`;

export interface MyConsentView {
  id: string;
  tppName: string;
  kind: string;
  scopes: string[];
  authorisedAt: string | null;
  expiresAt: string;
  vrp: VrpPageTerms | null;
}

/** Each kind of consent as the customer reads it. */
export const KIND_WORDS: Record<string, string> = {
  accounts: 'Account access',
  funds_confirmation: 'Confirmation of funds',
  vrp: 'Recurring payments (VRP)',
};

const TOKEN = /^ccs_[0-9A-Za-z_-]{1,600}$/;
const BANK = /^[a-z0-9][a-z0-9_-]{0,63}$/i;

const day = (iso: string) => `${iso.slice(0, 10)} (${iso.slice(11, 16)} UTC)`;

/** A refusal of the sign-in or of a revocation, in the consent page's words. */
function refusal(code: string): string {
  if (code === 'UNAUTHORIZED') return 'Your visit has ended (10 minutes). Please sign in again.';
  if (code === 'CONSENT_NOT_FOUND') return 'This consent is not one of yours. Nothing was revoked.';
  const text = REFUSALS[code]?.text;
  return text ? text.replace('{bank}', 'this bank') : code ? 'Something went wrong. Please try again.' : '';
}

/** The sign-in form: the bank (prefilled from ?bank=), the alias or IBAN and the OTP; posted without script. */
export function renderSignIn(nonce: string, bank: string, error: string): string {
  const message = refusal(error);
  return cardPage(
    'Your Open Banking consents',
    `<h1>Your Open Banking consents</h1>
<p class="meta">See which apps can access your accounts or pay from them, and revoke any of them. Your bank sends you a one-time password.</p>
<form id="sign-in-form" method="post" action="/ob/my-consents/session">
  <fieldset>
    <label for="bank-handle">Your bank</label>
    <input id="bank-handle" name="bank_handle" value="${escapeHtml(bank)}" autocomplete="off" autocapitalize="none" spellcheck="false" required maxlength="64">
    <div class="choice">
      <label><input type="radio" name="customer_type" id="customer-type-alias" value="alias" checked> Alias</label>
      <label><input type="radio" name="customer_type" id="customer-type-iban" value="iban"> IBAN</label>
    </div>
    <label for="customer-value">Your alias or IBAN</label>
    <input id="customer-value" name="customer_value" autocomplete="off" autocapitalize="none" spellcheck="false" required maxlength="64">
    <label for="otp">One-time password from your bank</label>
    <input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{4,12}" required maxlength="12">
  </fieldset>
  <p id="message" role="alert" class="message"${message ? ` data-error="${escapeHtml(error)}"` : ' hidden'}>${escapeHtml(message)}</p>
  <button type="submit" id="sign-in-button">Show my consents</button>
</form>`,
    nonce,
  );
}

function consentItem(consent: MyConsentView, token: string): string {
  const lines = consent.vrp ? vrpLimitLines(consent.vrp) : consent.scopes.map((scope) => SCOPE_WORDS[scope] ?? scope);
  const id = escapeHtml(consent.id);
  return `<li class="consent" data-consent-id="${id}" data-kind="${escapeHtml(consent.kind)}">
  <p class="merchant"><strong class="tpp-name">${escapeHtml(consent.tppName)}</strong> · <span class="kind">${escapeHtml(KIND_WORDS[consent.kind] ?? consent.kind)}</span></p>
  <ul class="scopes">${lines.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>
  <p class="meta">${consent.authorisedAt ? `Since ${escapeHtml(day(consent.authorisedAt))}, u` : 'U'}ntil ${escapeHtml(day(consent.expiresAt))}</p>
  <form method="post" action="/ob/my-consents/consents/${encodeURIComponent(consent.id)}/revoke">
    <input type="hidden" name="token" value="${escapeHtml(token)}">
    <button type="submit" class="secondary revoke-button" id="revoke-${id}">Revoke</button>
  </form>
</li>`;
}

/** The list: every AUTHORISED consent, each with its Revoke form carrying the visit's token. */
export function renderList(nonce: string, consents: MyConsentView[], token: string, revoked: string): string {
  const done = revoked
    ? `<section id="revoked" class="status ok" data-revoked="${escapeHtml(revoked)}">Revoked. The app can no longer use this consent.</section>`
    : '';
  const list = consents.length
    ? `<ul id="consents" class="consents">${consents.map((consent) => consentItem(consent, token)).join('')}</ul>`
    : '<p id="no-consents" class="meta">No app has access to your accounts at this bank.</p>';
  return cardPage(
    'Your Open Banking consents',
    `<h1>Your Open Banking consents</h1>
${done}
${list}
<p class="hint">Revoking ends the access at once. This page signs you out after 10 minutes.</p>`,
    nonce,
  );
}

/**
 * GET /ob/my-consents for a browser (routes/customer-consents.ts): the sign-in form, or with
 * ?token= the customer's consents with a Revoke button each. Self-contained and without script:
 * the forms post to the JSON endpoints as plain HTML forms, answered 303 back here.
 */
export function myConsentsPage(execute: Execute, logger: Logger): PageHandler {
  return async (request, reply) => {
    const nonce = randomBytes(16).toString('base64');
    reply.type('text/html; charset=utf-8');
    securityHeaders(reply, nonce);
    const query = request.query as Record<string, unknown>;
    const text = (name: string) => (typeof query[name] === 'string' ? (query[name] as string) : '');
    const bank = BANK.test(text('bank')) ? text('bank') : '';
    const token = text('token');
    if (!TOKEN.test(token)) return reply.send(renderSignIn(nonce, bank, text('error')));
    const execution = await execute(request, MY_CONSENTS, { token }, undefined, { anonymous: true });
    passBackRouterHeaders(reply, execution.headers);
    const consents = execution.data?.customerConsents as MyConsentView[] | undefined;
    if (!consents) {
      const code = execution.error?.code ?? 'SERVICE_UNAVAILABLE';
      if (code !== 'UNAUTHORIZED')
        logger.warn({ request_id: request.requestId, code }, 'my consents page could not load the consents');
      return reply.code(code === 'UNAUTHORIZED' ? 401 : 503).send(renderSignIn(nonce, bank, code));
    }
    const revoked = /^con_[0-9A-Za-z]{1,64}$/.test(text('revoked')) ? text('revoked') : '';
    return reply.send(renderList(nonce, consents, token, revoked));
  };
}
