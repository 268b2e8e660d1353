import { randomBytes } from 'node:crypto';
import type { Logger } from '@gateway/kernel';
import type { Execute } from '../executor';
import { passBackRouterHeaders } from '../headers';
import type { PageHandler } from '../register-routes';
import { CHECKOUT_STYLE } from './checkout-assets';
import { formatAmount } from './checkout-page';
import { CONSENT_SCRIPT, CONSENT_STYLE } from './consent-assets';
import { escapeHtml, jsonForScript, securityHeaders, testBadge } from './html';

/** What the page needs, public for anyone holding the (unguessable) consent id. */
const CONSENT_VIEW = `query ConsentPage($id: ID!) {
  consentAuthorisation(id: $id) {
    id status tppName scopes expiresAt otpAttemptsLeft redirectUri redirectTo pageToken livemode bank { handle displayName }
    vrp { creditor { type value } currency reference maximumIndividualAmount periodicLimits { periodType periodAlignment amount } validFrom validTo }
  }
}`;

export interface ConsentPageView {
  id: string;
  status: string;
  tppName: string;
  scopes: string[];
  expiresAt: string;
  otpAttemptsLeft: number;
  redirectUri: string;
  redirectTo: string | null;
  /** What the page's decision carries (the reject form's page_token); null once decided. */
  pageToken: string | null;
  /** false: a test consent (TEST badge). */
  livemode: boolean;
  bank: { handle: string; displayName?: string | null };
  /** A VRP consent's terms: what the customer authorises; null for other consents. */
  vrp?: VrpPageTerms | null;
}

export interface VrpPageTerms {
  creditor: { type: string; value: string };
  currency: string;
  reference: string;
  maximumIndividualAmount: number;
  periodicLimits: Array<{ periodType: string; periodAlignment: string; amount: number }>;
  validFrom: string;
  validTo: string | null;
}

/** A periodic limit's period as the customer reads it. */
const PERIOD_WORDS: Record<string, { Calendar: string; Consent: string }> = {
  Day: { Calendar: 'per day', Consent: 'per day' },
  Week: { Calendar: 'per calendar week (Monday to Sunday)', Consent: 'per week, counted from the start date' },
  Fortnight: { Calendar: 'per fortnight', Consent: 'per two weeks, counted from the start date' },
  Month: { Calendar: 'per calendar month', Consent: 'per month, counted from the start date' },
  'Half-year': {
    Calendar: 'per half-year (January to June, July to December)',
    Consent: 'per six months, counted from the start date',
  },
  Year: { Calendar: 'per calendar year', Consent: 'per year, counted from the start date' },
};

/** Every limit of a VRP consent in plain words, amounts in major units with their currency (one formatter). */
export function vrpLimitLines(terms: VrpPageTerms): string[] {
  const money = (amount: number) => formatAmount(amount, terms.currency);
  const period = (limit: VrpPageTerms['periodicLimits'][number]) =>
    PERIOD_WORDS[limit.periodType]?.[limit.periodAlignment as 'Calendar' | 'Consent'] ?? `per ${limit.periodType}`;
  const day = (iso: string) => `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
  return [
    `Pay ${terms.creditor.value} (reference ${terms.reference}) without asking you each time`,
    `At most ${money(terms.maximumIndividualAmount)} per payment`,
    ...terms.periodicLimits.map((limit) => `At most ${money(limit.amount)} in total ${period(limit)}`),
    terms.validTo ? `From ${day(terms.validFrom)} until ${day(terms.validTo)}` : `From ${day(terms.validFrom)}`,
  ];
}

const CONSENT_ID = /^con_[0-9A-Za-z]{1,64}$/;

/** Each scope as the customer reads it (spec "Scopes"). */
export const SCOPE_WORDS: Record<string, string> = {
  'accounts:read': 'See your accounts and their details (account name, IBAN, currency)',
  'balances:read': 'See the balances of your accounts',
  'transactions:read': 'See the transactions on your accounts',
  'payments:write': 'Start payments from your accounts',
  // Confirmation of funds (CBPII, issue 51): what it allows, and what it never shows.
  funds_confirmation: 'Answer yes or no when asked whether your account holds an amount; never your balance',
};

/** Where a refusal is shown (next to the field it concerns) and in which words; {bank} and {left} are filled in. */
export const REFUSALS: Record<string, { field: 'customer' | 'otp' | 'form'; text: string }> = {
  OTP_INVALID: { field: 'otp', text: 'The one-time password was not accepted.' },
  ALIAS_NOT_FOUND: { field: 'customer', text: 'No account at {bank} is registered under this alias or IBAN.' },
  ALIAS_INACTIVE: { field: 'customer', text: 'This alias is no longer active.' },
  FUNDS_ACCOUNT_NOT_OWNED: {
    field: 'customer',
    text: 'The account this request is about is not one of your accounts at {bank}. Nothing was shared.',
  },
  VALIDATION_ERROR: {
    field: 'form',
    text: 'Please check what you entered: an alias or IBAN, and the one-time password (digits only).',
  },
  CBS_TIMEOUT: { field: 'form', text: 'Your bank did not answer in time. Nothing was shared; please try again.' },
  CBS_ERROR: {
    field: 'form',
    text: 'Your bank could not check the one-time password. Nothing was shared; please try again.',
  },
  BANK_NOT_PARTICIPATING: { field: 'form', text: '{bank} does not take part in Open Banking at the moment.' },
  RATE_LIMITED: { field: 'form', text: 'Too many attempts. Please wait a moment.' },
  UNAUTHORIZED: { field: 'form', text: 'This page was open too long. Please choose again.' },
  SERVICE_UNAVAILABLE: { field: 'form', text: 'The service is unavailable. Please try again shortly.' },
};

/** What the page says instead of the form once the customer can no longer decide. */
const CLOSED: Record<string, string> = {
  AUTHORISED: 'You have approved this request.',
  REJECTED: 'This request was rejected. Nothing was shared.',
  EXPIRED: 'This request has expired. Go back to {tpp} and start again.',
  REVOKED: 'This access has been revoked.',
};

const bankName = (view: ConsentPageView): string => view.bank.displayName ?? view.bank.handle;

/** The redirect URI as a CSP source: its origin, or its scheme for an app's own scheme (origin "null"). */
export function formTargetOf(redirectUri: string): string | null {
  try {
    const url = new URL(redirectUri);
    return url.origin !== 'null' ? url.origin : url.protocol;
  } catch {
    return null;
  }
}

const fill = (text: string, view: ConsentPageView): string =>
  text.replace('{bank}', bankName(view)).replace('{tpp}', view.tppName).replace('{left}', String(view.otpAttemptsLeft));

function refusalText(code: string, view: ConsentPageView): string {
  const refusal = REFUSALS[code];
  if (!refusal) return '';
  if (code !== 'OTP_INVALID') return fill(refusal.text, view);
  const left = view.otpAttemptsLeft;
  return `${refusal.text} ${left} attempt${left === 1 ? '' : 's'} left.`;
}

function page(title: string, body: string, nonce: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style nonce="${nonce}">${CHECKOUT_STYLE}${CONSENT_STYLE}</style></head>
<body><main class="card">${body}</main></body></html>`;
}

/**
 * The page: who asks for what, at which bank, until when; the customer's account and OTP with
 * Approve, and Reject. Both forms post to the JSON endpoints as plain HTML forms (answered 303),
 * so the page works without script; with script it stays on the page for refusals.
 * `error`: the code of a refused form post, shown next to its field.
 */
export function renderConsentPage(view: ConsentPageView, nonce: string, error = ''): string {
  const id = encodeURIComponent(view.id);
  const shown = view.status === 'AWAITING_AUTHORISATION' ? error : '';
  const field = REFUSALS[shown]?.field;
  const errorAt = (where: string) => (field === where ? escapeHtml(refusalText(shown, view)) : '');
  const returnHost = formTargetOf(view.redirectUri)?.replace(/^https?:\/\//, '') ?? view.redirectUri;
  const scopes = view.vrp
    ? vrpLimitLines(view.vrp)
        .map((line, index) => `<li data-vrp-limit="${index}">${escapeHtml(line)}</li>`)
        .join('')
    : view.scopes
        .map((scope) => `<li data-scope="${escapeHtml(scope)}">${escapeHtml(SCOPE_WORDS[scope] ?? scope)}</li>`)
        .join('');
  const closed = CLOSED[view.status];
  const decision = closed
    ? `<section id="closed" class="status ${view.status === 'AUTHORISED' ? 'ok' : 'bad'}" data-status="${escapeHtml(view.status)}"><span id="closed-text">${escapeHtml(fill(closed, view))}</span></section>
${view.redirectTo ? `<p class="redirect"><a id="return-link" href="${escapeHtml(view.redirectTo)}">Return to ${escapeHtml(view.tppName)}</a></p>` : ''}`
    : `<form id="approve-form" method="post" action="/ob/auth/${id}/approve">
  <fieldset>
    <legend>Confirm it is you, at ${escapeHtml(bankName(view))}</legend>
    <div class="choice">
      <label><input type="radio" name="customer_type" id="customer-type-alias" value="alias" checked> Alias</label>
      <label><input type="radio" name="customer_type" id="customer-type-iban" value="iban"> IBAN</label>
    </div>
    <label for="customer-value" id="customer-label">Your alias or IBAN</label>
    <input id="customer-value" name="customer_value" autocomplete="off" autocapitalize="none" spellcheck="false" required maxlength="64" aria-describedby="customer-error">
    <p class="field-error" id="customer-error" role="alert">${errorAt('customer')}</p>
    <label for="otp">One-time password from your bank</label>
    <input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{4,12}" required maxlength="12" aria-describedby="otp-error attempts">
    <p class="field-error" id="otp-error" role="alert">${errorAt('otp')}</p>
    <p class="hint" id="attempts">${view.otpAttemptsLeft < 3 ? `${view.otpAttemptsLeft} attempt${view.otpAttemptsLeft === 1 ? '' : 's'} left` : ''}</p>
  </fieldset>
  <p id="message" role="alert" class="message"${errorAt('form') ? '' : ' hidden'}>${errorAt('form')}</p>
  <button type="submit" id="approve-button">Approve</button>
</form>
<form id="reject-form" method="post" action="/ob/auth/${id}/reject">
  <input type="hidden" id="page-token" name="page_token" value="${escapeHtml(view.pageToken ?? '')}">
  <button type="submit" id="reject-button" class="secondary">Reject</button>
</form>`;
  const body = `
${testBadge(view.livemode, "Test request: the app reads the test bank's copy of your accounts, never the real ones.")}
<p class="merchant"><strong id="tpp-name">${escapeHtml(view.tppName)}</strong> asks ${view.vrp ? 'to make payments from your account' : 'for access to your accounts'} at <strong id="bank-name">${escapeHtml(bankName(view))}</strong></p>
<h1>${view.vrp ? 'Allow these payments?' : 'Allow access?'}</h1>
<ul class="scopes" id="scopes">${scopes}</ul>
<p class="meta">Until <time id="expires" datetime="${escapeHtml(view.expiresAt)}">${escapeHtml(view.expiresAt.slice(0, 10))}</time> (${escapeHtml(view.expiresAt.slice(11, 16))} UTC). You can revoke it earlier at your bank. Afterwards you return to ${escapeHtml(returnHost)}.</p>
${decision}
<script type="application/json" id="consent-data">${jsonForScript({ id: view.id, status: view.status, tppName: view.tppName, bankName: bankName(view), otpAttemptsLeft: view.otpAttemptsLeft, refusals: REFUSALS })}</script>
<script nonce="${nonce}">${CONSENT_SCRIPT}</script>`;
  return page(`${view.tppName} asks for access`, body, nonce);
}

function notFoundPage(nonce: string): string {
  return page(
    'Request not found',
    '<h1>Request not found</h1><p class="meta">This link is not valid. Go back to the app that sent you and start again.</p>',
    nonce,
  );
}

/** A fapi2 client's consent opened by its URL alone, not through its pushed request (PAR_REQUIRED). */
function notPushedPage(nonce: string): string {
  return page(
    'Start again from the app',
    '<h1>This link cannot be opened directly</h1><p class="meta">Go back to the app that sent you and start again from there.</p>',
    nonce,
  );
}

function unavailablePage(nonce: string): string {
  return page(
    'Try again shortly',
    '<h1>This page is unavailable</h1><p class="meta">Please try again in a moment.</p>',
    nonce,
  );
}

/**
 * GET /ob/auth/{consent_id} for a browser: the consent page (HTML, self-contained, no CDN),
 * built from the public consentAuthorisation query; no business logic here, the forms post to
 * the JSON endpoints. A request asking for JSON never gets here (routes/consent-authorisation.ts).
 */
export function consentPage(execute: Execute, logger: Logger): PageHandler {
  return async (request, reply) => {
    const nonce = randomBytes(16).toString('base64');
    const id = (request.params as { consent_id: string }).consent_id;
    reply.type('text/html; charset=utf-8');
    if (!CONSENT_ID.test(id)) {
      securityHeaders(reply, nonce);
      return reply.code(404).send(notFoundPage(nonce));
    }
    const execution = await execute(request, CONSENT_VIEW, { id }, undefined, { anonymous: true });
    passBackRouterHeaders(reply, execution.headers);
    const view = execution.data?.consentAuthorisation as ConsentPageView | undefined;
    if (!view) {
      securityHeaders(reply, nonce);
      if (execution.error?.code === 'CONSENT_NOT_FOUND') return reply.code(404).send(notFoundPage(nonce));
      if (execution.error?.code === 'PAR_REQUIRED') return reply.code(400).send(notPushedPage(nonce));
      logger.warn(
        { request_id: request.requestId, code: execution.error?.code },
        'consent page could not load its consent',
      );
      return reply.code(503).send(unavailablePage(nonce));
    }
    const target = formTargetOf(view.redirectUri);
    securityHeaders(reply, nonce, target ? [target] : []);
    const error = (request.query as { error?: unknown }).error;
    return reply.send(renderConsentPage(view, nonce, typeof error === 'string' ? error : ''));
  };
}
