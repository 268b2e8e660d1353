import { randomBytes } from 'node:crypto';
import type { Logger } from '@gateway/kernel';
import type { Execute } from '../executor';
import { passBackRouterHeaders } from '../headers';
import type { PageHandler } from '../register-routes';
import { formatAmount } from './checkout-page';
import { cardPage as page, escapeHtml, securityHeaders, testBadge } from './html';

/** What the page needs, public for anyone holding the (unguessable) payment order id. */
const SCA_VIEW = `query ScaPage($id: ID!) {
  paymentOrderSca(id: $id) { id status tppName payeeIban amount currency description payerBank expiresAt otpAttemptsLeft livemode }
}`;

interface ScaPageView {
  id: string;
  status: string;
  tppName: string;
  payeeIban: string;
  amount: number;
  currency: string;
  description: string | null;
  payerBank: string;
  expiresAt: string;
  otpAttemptsLeft: number;
  /** false: a test order (TEST badge). */
  livemode: boolean;
}

const ORDER_ID = /^po_[0-9A-Za-z]{1,64}$/;

/** The refusal a form post came back with (?error=<code>), in the customer's words. */
const REFUSALS: Record<string, string> = {
  OTP_INVALID: 'That one-time password was not accepted.',
  VALIDATION_ERROR: 'Enter the one-time password from your bank.',
  PAYMENT_ORDER_NOT_PENDING_SCA: 'This payment no longer awaits your confirmation.',
  CBS_TIMEOUT: 'Your bank did not answer in time. Try again.',
  CBS_ERROR: 'Your bank could not check the password. Try again.',
};

const DONE: Record<string, { text: string; ok: boolean }> = {
  PROCESSING: { text: 'Payment authorised: it is being executed. You can close this page.', ok: true },
  COMPLETED: { text: 'Payment authorised and completed. You can close this page.', ok: true },
  FAILED: { text: 'This payment failed and will not be made.', ok: false },
  REJECTED: { text: 'Your bank declined this payment.', ok: false },
};

/**
 * The SCA page: payee IBAN, amount, the TPP, and one field for the OTP. A plain form (no script
 * needed): POST /ob/sca/{id}/authorize answers the browser 303 back here, where the order's
 * status (or ?error=<code>) says what happened.
 */
export function renderScaPage(view: ScaPageView, nonce: string, error: string): string {
  const id = encodeURIComponent(view.id);
  const done = DONE[view.status];
  const refusal = error ? (REFUSALS[error] ?? 'Something went wrong. Try again.') : '';
  const attempts =
    view.otpAttemptsLeft < 3 ? `${view.otpAttemptsLeft} attempt${view.otpAttemptsLeft === 1 ? '' : 's'} left` : '';
  const decision = done
    ? `<section id="closed" class="status ${done.ok ? 'ok' : 'bad'}" data-status="${escapeHtml(view.status)}"><span id="closed-text">${escapeHtml(done.text)}</span></section>`
    : `<form id="sca-form" method="post" action="/ob/sca/${id}/authorize">
  <fieldset>
    <legend>Confirm it is you, at your bank (${escapeHtml(view.payerBank)})</legend>
    <label for="otp">One-time password from your bank</label>
    <input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" required maxlength="32" aria-describedby="otp-error attempts">
    <p class="field-error" id="otp-error" role="alert">${escapeHtml(refusal)}</p>
    <p class="hint" id="attempts">${escapeHtml(attempts)}</p>
  </fieldset>
  <button type="submit" id="authorize-button">Pay ${escapeHtml(formatAmount(view.amount, view.currency))}</button>
</form>`;
  const body = `
${testBadge(view.livemode, 'Test payment: no real money moves.')}
<p class="merchant"><strong id="tpp-name">${escapeHtml(view.tppName)}</strong> asks you to confirm a payment</p>
<p class="amount" id="amount">${escapeHtml(formatAmount(view.amount, view.currency))}</p>
<p class="meta">To <span id="payee-iban">${escapeHtml(view.payeeIban)}</span></p>
${view.description ? `<p class="description" id="description">${escapeHtml(view.description)}</p>` : ''}
<p class="meta">Confirm before <time id="expires" datetime="${escapeHtml(view.expiresAt)}">${escapeHtml(view.expiresAt.replace('T', ' ').slice(0, 16))} UTC</time>.</p>
${decision}`;
  return page(`Confirm a payment to ${view.payeeIban}`, body, nonce);
}

function notFoundPage(nonce: string): string {
  return page(
    'Payment not found',
    '<h1>Payment not found</h1><p class="meta">This link is not valid. Go back to the app that sent you.</p>',
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
 * GET /ob/sca/{payment_order_id} for a browser: the SCA page (HTML, self-contained), built from
 * the public paymentOrderSca query; no business logic here. A request asking for JSON never
 * gets here (routes/sca.ts).
 */
export function scaPage(execute: Execute, logger: Logger): PageHandler {
  return async (request, reply) => {
    const nonce = randomBytes(16).toString('base64');
    const id = (request.params as { payment_order_id: string }).payment_order_id;
    securityHeaders(reply, nonce);
    reply.type('text/html; charset=utf-8');
    if (!ORDER_ID.test(id)) return reply.code(404).send(notFoundPage(nonce));
    const execution = await execute(request, SCA_VIEW, { id }, undefined, { anonymous: true });
    passBackRouterHeaders(reply, execution.headers);
    const view = execution.data?.paymentOrderSca as ScaPageView | undefined;
    if (!view) {
      if (execution.error?.code === 'PAYMENT_ORDER_NOT_FOUND') return reply.code(404).send(notFoundPage(nonce));
      logger.warn(
        { request_id: request.requestId, code: execution.error?.code },
        'SCA page could not load its payment order',
      );
      return reply.code(503).send(unavailablePage(nonce));
    }
    const error = (request.query as { error?: unknown }).error;
    return reply.send(renderScaPage(view, nonce, typeof error === 'string' ? error : ''));
  };
}
