import { randomBytes } from 'node:crypto';
import type { Logger } from '@gateway/kernel';
import type { Execute } from '../executor';
import { passBackRouterHeaders } from '../headers';
import type { PageHandler } from '../register-routes';
import { formatAmount } from './checkout-page';
import { cardPage, escapeHtml, maskAlias, securityHeaders, testBadge } from './html';

/** What the page needs, public for anyone holding the (unguessable) mandate id. */
const MANDATE_VIEW = `query MandatePage($id: ID!) {
  mandateConfirmation(id: $id) { mandateId status merchantName amount currency interval description startDate customerAlias customerBank { handle displayName } otpAttemptsLeft livemode }
}`;

interface MandatePageView {
  mandateId: string;
  status: string;
  merchantName: string;
  amount: number;
  currency: string;
  interval: string;
  description: string | null;
  startDate: string;
  customerAlias: string;
  customerBank: { handle: string; displayName: string | null };
  otpAttemptsLeft: number;
  /** false: a test mandate (TEST badge). */
  livemode: boolean;
}

const MANDATE_ID = /^mdt_[0-9A-Za-z]{1,64}$/;

const EVERY: Record<string, string> = { WEEKLY: 'every week', MONTHLY: 'every month', YEARLY: 'every year' };

/** The refusal a form post came back with (?error=<code>), in the customer's words. */
const REFUSALS: Record<string, string> = {
  OTP_INVALID: 'That one-time password was not accepted.',
  VALIDATION_ERROR: 'Enter the one-time password from your bank.',
  RATE_LIMITED: 'Too many wrong passwords lately. Please wait a few minutes and try again.',
  MANDATE_NOT_PENDING_CONFIRMATION: 'This mandate no longer awaits your confirmation.',
  CBS_TIMEOUT: 'Your bank did not answer in time. Try again.',
  CBS_ERROR: 'Your bank could not check the password. Try again.',
};

const DONE: Record<string, { text: string; ok: boolean }> = {
  ACTIVE: { text: 'Mandate active. The merchant may now charge you as shown. You can close this page.', ok: true },
  CANCELLED: { text: 'This mandate was cancelled: nothing more will be charged.', ok: false },
  FAILED: { text: 'This mandate was not confirmed (too many wrong passwords) and cannot be used.', ok: false },
};

/**
 * The mandate confirmation page (confirm_url): who will charge, up to how much, how often and
 * from when, and one field for the OTP from the customer's bank. A plain form (no script needed):
 * POST /recurring/mandates/{id}/confirm answers the browser 303 back here, where the mandate's
 * status (or ?error=<code>) says what happened.
 */
export function renderMandatePage(view: MandatePageView, nonce: string, error: string): string {
  const id = encodeURIComponent(view.mandateId);
  const done = DONE[view.status];
  const amount = formatAmount(view.amount, view.currency);
  const bank = view.customerBank.displayName ?? view.customerBank.handle;
  const refusal = error ? (REFUSALS[error] ?? 'Something went wrong. Try again.') : '';
  const attempts =
    view.otpAttemptsLeft < 3 ? `${view.otpAttemptsLeft} attempt${view.otpAttemptsLeft === 1 ? '' : 's'} left` : '';
  const decision = done
    ? `<section id="closed" class="status ${done.ok ? 'ok' : 'bad'}" data-status="${escapeHtml(view.status)}"><span id="closed-text">${escapeHtml(done.text)}</span></section>`
    : `<form id="mandate-form" method="post" action="/recurring/mandates/${id}/confirm">
  <fieldset>
    <legend>Confirm it is you, at your bank (${escapeHtml(bank)})</legend>
    <label for="otp">One-time password from your bank</label>
    <input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" required maxlength="32" aria-describedby="otp-error attempts">
    <p class="field-error" id="otp-error" role="alert">${escapeHtml(refusal)}</p>
    <p class="hint" id="attempts">${escapeHtml(attempts)}</p>
  </fieldset>
  <button type="submit" id="confirm-button">Allow charges of up to ${escapeHtml(amount)}</button>
</form>`;
  const body = `
${testBadge(view.livemode, 'Test mandate: its charges move no real money.')}
<p class="merchant"><strong id="merchant-name">${escapeHtml(view.merchantName)}</strong> asks to charge you regularly</p>
<p class="amount" id="amount">Up to ${escapeHtml(amount)} <span id="interval">${escapeHtml(EVERY[view.interval] ?? view.interval.toLowerCase())}</span></p>
<p class="meta">From <time id="start-date" datetime="${escapeHtml(view.startDate)}">${escapeHtml(view.startDate)}</time>, from your account <span id="customer">${escapeHtml(maskAlias(view.customerAlias))}</span> at ${escapeHtml(bank)}.</p>
${view.description ? `<p class="description" id="description">${escapeHtml(view.description)}</p>` : ''}
<p class="meta">You can cancel it at any time through your bank.</p>
${decision}`;
  return cardPage(`Allow ${view.merchantName} to charge you`, body, nonce);
}

const notFoundPage = (nonce: string) =>
  cardPage(
    'Mandate not found',
    '<h1>Mandate not found</h1><p class="meta">This link is not valid. Go back to the merchant that sent you.</p>',
    nonce,
  );
const unavailablePage = (nonce: string) =>
  cardPage(
    'Try again shortly',
    '<h1>This page is unavailable</h1><p class="meta">Please try again in a moment.</p>',
    nonce,
  );

/**
 * GET /mandates/{mandate_id}/confirm: the confirmation page (HTML, self-contained), built from the
 * public mandateConfirmation query; no business logic here.
 */
export function mandatePage(execute: Execute, logger: Logger): PageHandler {
  return async (request, reply) => {
    const nonce = randomBytes(16).toString('base64');
    const id = (request.params as { mandate_id: string }).mandate_id;
    securityHeaders(reply, nonce);
    reply.type('text/html; charset=utf-8');
    if (!MANDATE_ID.test(id)) return reply.code(404).send(notFoundPage(nonce));
    const execution = await execute(request, MANDATE_VIEW, { id });
    passBackRouterHeaders(reply, execution.headers);
    const view = execution.data?.mandateConfirmation as MandatePageView | undefined;
    if (!view) {
      if (execution.error?.code === 'MANDATE_NOT_FOUND') return reply.code(404).send(notFoundPage(nonce));
      logger.warn(
        { request_id: request.requestId, code: execution.error?.code },
        'mandate page could not load its mandate',
      );
      return reply.code(503).send(unavailablePage(nonce));
    }
    const error = (request.query as { error?: unknown }).error;
    return reply.send(renderMandatePage(view, nonce, typeof error === 'string' ? error : ''));
  };
}
