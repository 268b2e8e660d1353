import { randomBytes } from 'node:crypto';
import { formatMoney, type Logger } from '@gateway/kernel';
import type { Execute } from '../executor';
import { passBackRouterHeaders } from '../headers';
import type { PageHandler } from '../register-routes';
import { CHECKOUT_SCRIPT, CHECKOUT_STYLE } from './checkout-assets';
import { escapeHtml, jsonForScript, securityHeaders, testBadge } from './html';

/** What the page needs, public for anyone holding the (unguessable) session id. */
const CHECKOUT_SESSION = `query CheckoutPage($id: ID!) {
  checkoutSession(id: $id) {
    id status amount currency description merchantName expiresAt otpAttemptsLeft redirectTo reference completedAt failureCode livemode creditorBank { handle displayName }
  }
}`;

interface CheckoutView {
  id: string;
  status: string;
  amount: number;
  currency: string;
  description: string | null;
  merchantName: string;
  expiresAt: string;
  otpAttemptsLeft: number;
  redirectTo: string | null;
  reference: string | null;
  completedAt: string | null;
  failureCode: string | null;
  /** false: a test session (TEST badge). */
  livemode: boolean;
  creditorBank: { handle: string; displayName?: string | null };
}

const SESSION_ID = /^ops_[0-9A-Za-z]{1,64}$/;

/** 12500 LYD (3 decimals) -> "12.500 LYD": the platform's one formatter. */
export const formatAmount = (amount: number, currency: string): string => formatMoney(amount, currency);

function page(title: string, body: string, nonce: string): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title><style nonce="${nonce}">${CHECKOUT_STYLE}</style></head>
<body><main class="card">${body}</main></body></html>`;
}

export function renderCheckoutPage(view: CheckoutView, nonce: string): string {
  const bank = view.creditorBank.displayName ?? view.creditorBank.handle;
  const amountText = formatAmount(view.amount, view.currency);
  // Each message sits next to what it is about: the payer's account, the OTP (with the one count
  // of attempts left), or, concerning neither, above the button; the outcome replaces the form.
  const body = `
${testBadge(view.livemode, 'Test payment: no real money moves.')}
<p class="merchant">Pay <strong>${escapeHtml(view.merchantName)}</strong></p>
<p class="amount" id="amount">${escapeHtml(amountText)}</p>
${view.description ? `<p class="description">${escapeHtml(view.description)}</p>` : ''}
<p class="meta">To an account at ${escapeHtml(bank)} · pay before <time datetime="${escapeHtml(view.expiresAt)}">${escapeHtml(view.expiresAt.replace('T', ' ').slice(0, 16))} UTC</time></p>
<form id="pay-form" novalidate>
  <fieldset id="payer-fields">
    <legend>Your account</legend>
    <div class="choice">
      <label><input type="radio" name="payer-type" id="payer-type-alias" value="alias" checked> Alias</label>
      <label><input type="radio" name="payer-type" id="payer-type-iban" value="iban"> IBAN</label>
    </div>
    <label for="payer-value" id="payer-label">Alias (e.g. amina or amina@oasis)</label>
    <input id="payer-value" name="payer-value" autocomplete="off" autocapitalize="none" spellcheck="false" required maxlength="64" aria-describedby="payer-error">
    <p class="field-error" id="payer-error" role="alert" hidden></p>
    <label for="otp">One-time password from your bank</label>
    <input id="otp" name="otp" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{4,12}" required maxlength="12" aria-describedby="otp-error attempts">
    <p class="field-error" id="otp-error" role="alert" hidden></p>
    <p class="hint" id="attempts"></p>
  </fieldset>
  <p id="message" role="alert" class="message" hidden></p>
  <button type="submit" id="pay-button">Pay ${escapeHtml(amountText)}</button>
</form>
<section id="status" class="status" aria-live="polite" hidden><span class="spinner" id="spinner"></span><span id="status-text"></span></section>
<section id="receipt" class="receipt" hidden>
  <h2>Receipt</h2>
  <dl>
    <dt>Amount</dt><dd id="receipt-amount">${escapeHtml(amountText)}</dd>
    <dt>Paid to</dt><dd id="receipt-payee">${escapeHtml(view.merchantName)}</dd>
    ${view.reference ? `<dt>Reference</dt><dd id="receipt-reference">${escapeHtml(view.reference)}</dd>` : ''}
    <dt>Payment</dt><dd id="receipt-payment"><code>${escapeHtml(view.id)}</code></dd>
    <dt>Time</dt><dd id="receipt-time"></dd>
  </dl>
  <p class="meta">Your bank statement shows this payment under the reference ${escapeHtml(view.id)}.</p>
</section>
<p id="redirect" class="redirect" hidden></p>
<script type="application/json" id="checkout-data">${jsonForScript(view)}</script>
<script nonce="${nonce}">${CHECKOUT_SCRIPT}</script>`;
  return page(`Pay ${view.merchantName}`, body, nonce);
}

function notFoundPage(nonce: string): string {
  return page(
    'Payment not found',
    '<h1>Payment not found</h1><p class="meta">This payment link is not valid. Ask the merchant for a new one.</p>',
    nonce,
  );
}

function unavailablePage(nonce: string): string {
  return page(
    'Try again shortly',
    '<h1>Checkout is unavailable</h1><p class="meta">Please try again in a moment.</p>',
    nonce,
  );
}

/**
 * GET /pay/{session_id} for a browser: the customer checkout page (HTML, self-contained, no CDN),
 * built from the public checkoutSession query; no business logic here, the page calls the JSON
 * endpoints. A request asking for JSON never gets here: the route table answers it (routes/checkout.ts).
 */
export function checkoutPage(execute: Execute, logger: Logger): PageHandler {
  return async (request, reply) => {
    const nonce = randomBytes(16).toString('base64');
    const id = (request.params as { session_id: string }).session_id;
    securityHeaders(reply, nonce);
    reply.type('text/html; charset=utf-8');
    if (!SESSION_ID.test(id)) return reply.code(404).send(notFoundPage(nonce));
    const execution = await execute(request, CHECKOUT_SESSION, { id }, undefined, { anonymous: true });
    passBackRouterHeaders(reply, execution.headers);
    const view = execution.data?.checkoutSession as CheckoutView | undefined;
    if (!view) {
      if (execution.error?.code === 'SESSION_NOT_FOUND') return reply.code(404).send(notFoundPage(nonce));
      logger.warn(
        { request_id: request.requestId, code: execution.error?.code },
        'checkout page could not load its session',
      );
      return reply.code(503).send(unavailablePage(nonce));
    }
    return reply.send(renderCheckoutPage(view, nonce));
  };
}
