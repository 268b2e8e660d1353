/** Inline style and script of the checkout page (no CDN: payers' networks and test machines may be offline). */

export const CHECKOUT_STYLE = `
:root { color-scheme: light; --ink: #1b2430; --muted: #5b6675; --line: #d9dee5; --accent: #0b6e4f; --bad: #b42318; }
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; background: #f3f5f7; font: 16px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); }
.card { width: min(420px, 100% - 2rem); background: #fff; border: 1px solid var(--line); border-radius: 12px; padding: 1.5rem; box-shadow: 0 8px 24px rgba(16,24,40,.06); }
h1 { font-size: 1.25rem; margin: 0 0 .5rem; }
.merchant { margin: 0; color: var(--muted); }
.amount { font-size: 2rem; font-weight: 700; margin: .25rem 0; }
.description { margin: 0 0 .25rem; }
.meta, .hint { color: var(--muted); font-size: .875rem; margin: .25rem 0 1rem; }
fieldset { border: 0; padding: 0; margin: 0; }
legend { font-weight: 600; margin-bottom: .5rem; }
.choice { display: flex; gap: 1.25rem; margin-bottom: .75rem; }
label { display: block; font-size: .9rem; margin: .5rem 0 .25rem; }
.choice label { display: inline-flex; gap: .35rem; align-items: center; margin: 0; }
input[type=text], input:not([type]), input[inputmode] { width: 100%; padding: .65rem .75rem; border: 1px solid var(--line); border-radius: 8px; font: inherit; }
input:focus { outline: 2px solid var(--accent); outline-offset: 1px; }
button { width: 100%; margin-top: 1rem; padding: .8rem; border: 0; border-radius: 8px; background: var(--accent); color: #fff; font: inherit; font-weight: 600; cursor: pointer; }
button:disabled { opacity: .6; cursor: progress; }
.message { margin: 1rem 0 0; padding: .75rem; border-radius: 8px; background: #fef3f2; color: var(--bad); }
.field-error { margin: .35rem 0 0; color: var(--bad); font-size: .875rem; }
.field-error + .hint { margin-top: .1rem; }
input[aria-invalid=true] { border-color: var(--bad); }
.receipt { margin-top: 1rem; padding-top: 1rem; border-top: 1px solid var(--line); }
.receipt h2 { font-size: 1rem; margin: 0 0 .5rem; }
.receipt dl { display: grid; grid-template-columns: max-content 1fr; gap: .35rem 1rem; margin: 0 0 .75rem; }
.receipt dt { color: var(--muted); }
.receipt dd { margin: 0; overflow-wrap: anywhere; }
.status { display: flex; gap: .6rem; align-items: center; margin-top: 1rem; font-weight: 600; }
.status.ok { color: var(--accent); } .status.bad { color: var(--bad); }
.spinner { width: 1rem; height: 1rem; border: 2px solid var(--line); border-top-color: var(--accent); border-radius: 50%; animation: spin 1s linear infinite; }
[hidden] { display: none !important; }
.test-badge { display: flex; gap: .5rem; align-items: baseline; margin: 0 0 1rem; padding: .45rem .65rem; border-radius: 8px; background: #fff4d6; border: 1px solid #f0d48a; color: #7a4b00; font-size: .875rem; }
.test-badge .badge { flex: none; padding: .05rem .4rem; border-radius: 4px; background: #7a4b00; color: #fff; font-size: .75rem; letter-spacing: .06em; }
code { overflow-wrap: anywhere; }
.redirect { color: var(--muted); font-size: .9rem; }
@keyframes spin { to { transform: rotate(360deg); } }
@media (prefers-reduced-motion: reduce) { .spinner { animation: none; } }
`;

/**
 * The page's behaviour: POST /pay/{id}/authorize, then live status over graphql-ws with the
 * session token (paymentSessionUpdated), falling back to GET /pay/{id}/status polls, until the
 * session is final, then back to the merchant. Without a token (a refusal that
 * ended the session, or a reload mid-payment) it follows the public view at GET /pay/{id}.
 */
export const CHECKOUT_SCRIPT = `
(() => {
  const data = JSON.parse(document.getElementById('checkout-data').textContent);
  const $ = (id) => document.getElementById(id);
  const FINAL = ['COMPLETED', 'FAILED', 'EXPIRED'];
  const STATUS_TEXT = {
    PENDING: 'Waiting for your authorization',
    PROCESSING: 'Your bank is processing the payment…',
    SETTLEMENT_PENDING: 'Paid; waiting for the receiving bank to confirm…',
    COMPLETED: 'Payment completed',
    FAILED: 'The payment did not go through',
    EXPIRED: 'This payment link has expired. Ask the merchant for a new one.',
  };
  // Why a payment ended FAILED (its failure code), as the end of "The payment did not go through: …".
  const FAILURES = {
    INSUFFICIENT_FUNDS: 'your balance is too low for this payment. No money was taken.',
    OTP_INVALID: 'the one-time password was refused three times. No money was taken.',
    CBS_TIMEOUT: 'your bank did not answer in time. Any money taken is returned to your account.',
    CBS_ERROR: 'your bank could not process it. Any money taken is returned to your account.',
    CBS_OUTCOME_UNKNOWN: 'the banks could not confirm it in time. Any money taken is returned to your account.',
  };
  const FAILURE_DEFAULT = 'any money taken is returned to your account.';
  // Refusals of one attempt, and the field each concerns ('' : neither; shown above the button).
  const ERRORS = {
    OTP_INVALID: ['otp', 'The one-time password was not accepted.'],
    RATE_LIMITED: ['otp', 'Too many wrong one-time passwords. Please wait a few minutes and try again.'],
    ALIAS_NOT_FOUND: ['payer', 'No account is registered under this alias or IBAN.'],
    ALIAS_INACTIVE: ['payer', 'This alias is no longer active.'],
    BANK_NOT_PARTICIPATING: ['payer', 'Your bank does not take part in these payments.'],
    VALIDATION_ERROR: ['payer', 'Please check your alias or IBAN.'],
    SESSION_NOT_FOUND: ['', 'This payment link is not valid.'],
    SESSION_IN_PROGRESS: ['', 'This payment is already being processed.'],
    CBS_TIMEOUT: ['', 'Your bank did not answer in time. Nothing was paid; please try again.'],
    CBS_ERROR: ['', 'Your bank could not check the payment. Nothing was paid; please try again.'],
  };
  let token = null;

  const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
  const setHidden = (id, hidden) => { $(id).hidden = hidden; };

  // One message at a time, next to the field it concerns ('payer', 'otp'), or above the button ('').
  function showMessage(field, text) {
    for (const [id, input, name] of [['payer-error', 'payer-value', 'payer'], ['otp-error', 'otp', 'otp'], ['message', null, '']]) {
      const mine = name === field && Boolean(text);
      $(id).textContent = mine ? text : '';
      setHidden(id, !mine);
      if (input) $(input).setAttribute('aria-invalid', String(mine));
    }
  }

  function showStatus(status, failureCode) {
    const section = $('status');
    section.className = 'status' + (status === 'COMPLETED' ? ' ok' : status === 'FAILED' || status === 'EXPIRED' ? ' bad' : '');
    section.dataset.status = status;
    const text = STATUS_TEXT[status] || status;
    $('status-text').textContent = status === 'FAILED' ? text + ': ' + (FAILURES[failureCode] || FAILURE_DEFAULT) : text;
    $('spinner').hidden = FINAL.includes(status);
    setHidden('status', false);
  }

  // The one place that counts the attempts left, under the OTP field.
  function showAttempts(left) {
    $('attempts').textContent = left < 3 ? left + ' attempt' + (left === 1 ? '' : 's') + ' left' : '';
  }

  function lockForm() {
    setHidden('pay-form', true);
  }

  // "2026-11-24T07:30:05.123Z" -> "2026-11-24 07:30:05 UTC": the same on every payer's screen and in any support call.
  const timeText = (iso) => (iso ? iso.replace('T', ' ').slice(0, 19) + ' UTC' : '');

  function showReceipt(completedAt) {
    $('receipt-time').textContent = timeText(completedAt || new Date().toISOString());
    setHidden('receipt', false);
  }

  function finish(status, answer) {
    answer = answer || {};
    const redirectTo = answer.redirect_to;
    lockForm();
    showStatus(status, answer.failure_code);
    if (status === 'COMPLETED') showReceipt(answer.completed_at);
    if (!redirectTo) return;
    const link = document.createElement('a');
    link.href = redirectTo;
    link.id = 'redirect-link';
    link.textContent = 'Return to ' + data.merchantName;
    $('redirect').replaceChildren('Returning to the merchant… ', link);
    setHidden('redirect', false);
    // Long enough to read the receipt; the link goes at once.
    setTimeout(() => window.location.assign(redirectTo), status === 'COMPLETED' ? 5000 : 2500);
  }

  async function current() {
    if (token) {
      const response = await fetch('/pay/' + encodeURIComponent(data.id) + '/status', { headers: { 'x-session-token': token, accept: 'application/json' } });
      if (response.ok) return response.json();
    }
    const response = await fetch('/pay/' + encodeURIComponent(data.id), { headers: { accept: 'application/json' } });
    return response.ok ? response.json() : null;
  }

  // Live status: a minimal graphql-ws client (protocol graphql-transport-ws) on this host's
  // /graphql, which rest-compat passes to the router. Resolves with the last status seen; any
  // trouble (no WebSocket, refused, dropped) just ends it and the page polls instead.
  function live(onStatus) {
    return new Promise((resolve) => {
      let last = null;
      let socket;
      const end = () => {
        if (!socket) return;
        const closing = socket;
        socket = null;
        try { closing.close(1000); } catch {}
        resolve(last);
      };
      try {
        socket = new WebSocket((location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + '/graphql', 'graphql-transport-ws');
      } catch {
        return resolve(null);
      }
      const send = (message) => socket && socket.send(JSON.stringify(message));
      socket.onopen = () => send({ type: 'connection_init', payload: { sessionToken: token } });
      socket.onmessage = (event) => {
        let message;
        try { message = JSON.parse(event.data); } catch { return end(); }
        if (message.type === 'connection_ack') {
          send({ id: 'status', type: 'subscribe', payload: { query: 'subscription($id: ID!) { paymentSessionUpdated(id: $id) { status } }', variables: { id: data.id } } });
        } else if (message.type === 'ping') {
          send({ type: 'pong' });
        } else if (message.type === 'next') {
          const update = message.payload && message.payload.data && message.payload.data.paymentSessionUpdated;
          if (!update) return end();
          last = update.status;
          $('status').dataset.live = 'subscription';
          onStatus(last);
          if (FINAL.includes(last)) end();
        } else if (message.type === 'complete' || message.type === 'error') {
          end();
        }
      };
      socket.onerror = end;
      socket.onclose = end;
    });
  }

  // answer: what is known of the session (redirect_to, failure_code, completed_at), snake_case as the JSON endpoints say it.
  async function follow(status, answer) {
    lockForm();
    showStatus(status);
    if (token && !FINAL.includes(status) && typeof WebSocket === 'function') {
      const last = await live((seen) => showStatus(seen));
      if (last) status = last;
      if (FINAL.includes(status)) {
        const read = await current().catch(() => null);
        return finish(status, read || answer);
      }
    }
    if (FINAL.includes(status) && !(answer && ('failure_code' in answer || 'completed_at' in answer))) answer = (await current().catch(() => null)) || answer;
    for (let polls = 0; !FINAL.includes(status) && polls < 600; polls += 1) {
      await sleep(1000);
      const read = await current().catch(() => null);
      if (!read) continue;
      status = read.status;
      answer = read;
      showStatus(status);
    }
    if (FINAL.includes(status)) finish(status, answer);
  }

  async function authorize(event) {
    event.preventDefault();
    const type = document.querySelector('input[name="payer-type"]:checked').value;
    const value = $('payer-value').value.trim();
    const otp = $('otp').value.trim();
    if (!value) return showMessage('payer', type === 'alias' ? 'Enter your alias.' : 'Enter your IBAN.');
    if (!/^[0-9]{4,12}$/.test(otp)) return showMessage('otp', 'Enter the one-time password your bank sent you (digits only).');
    showMessage('', '');
    $('pay-button').disabled = true;
    showStatus('PROCESSING');
    try {
      const response = await fetch('/pay/' + encodeURIComponent(data.id) + '/authorize', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ payer: { type, value }, otp }),
      });
      const body = await response.json().catch(() => ({}));
      if (response.ok) {
        token = body.session_token;
        return follow(body.status, body);
      }
      const error = body.error || {};
      setHidden('status', true);
      // A refusal that ended the session (the third wrong OTP, too low a balance, expiry): its own
      // state tells the payer what happened, with the reason. Otherwise the form stays for another try.
      const view = await current().catch(() => null);
      if (view && view.status !== 'PENDING') return follow(view.status, view);
      const [field, text] = ERRORS[error.code] || ['', 'The payment could not be made. Please try again.'];
      showMessage(field, text);
      if (view) showAttempts(view.otp_attempts_left);
      if (error.code === 'OTP_INVALID') $('otp').value = '';
    } catch {
      setHidden('status', true);
      showMessage('', 'The connection failed. Check your network and try again.');
    }
    $('pay-button').disabled = false;
  }

  for (const radio of document.querySelectorAll('input[name="payer-type"]')) {
    radio.addEventListener('change', () => {
      $('payer-label').textContent = radio.value === 'iban' && radio.checked ? 'IBAN' : 'Alias (e.g. amina or amina@oasis)';
    });
  }
  $('pay-form').addEventListener('submit', authorize);
  showAttempts(data.otpAttemptsLeft);
  if (data.status !== 'PENDING') follow(data.status, { redirect_to: data.redirectTo, failure_code: data.failureCode, completed_at: data.completedAt });
})();
`;
