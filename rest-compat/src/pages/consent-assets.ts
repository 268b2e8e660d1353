/** Inline style and script of the consent page, on top of the checkout page's style (no CDN). */

export const CONSENT_STYLE = `
.scopes { margin: .5rem 0 1rem; padding-left: 1.25rem; }
.scopes li { margin: .25rem 0; }
.field-error { color: var(--bad); font-size: .875rem; margin: .25rem 0 0; min-height: 0; }
.field-error:empty { display: none; }
button.secondary { background: #fff; color: var(--ink); border: 1px solid var(--line); margin-top: .5rem; }
#reject-form { margin: 0; }
`;

/**
 * The page's behaviour with script: the same two posts as the plain forms, but as JSON, so a
 * refusal is shown next to its field without leaving the page; success (or a rejection) sends
 * the browser to redirect_to. Without script the forms post themselves and are answered 303.
 */
export const CONSENT_SCRIPT = `
(() => {
  const data = JSON.parse(document.getElementById('consent-data').textContent);
  const $ = (id) => document.getElementById(id);
  const approveForm = $('approve-form');
  if (!approveForm) return;
  const base = '/ob/auth/' + encodeURIComponent(data.id);

  function fill(text, left) {
    return text.replace('{bank}', data.bankName).replace('{tpp}', data.tppName).replace('{left}', String(left));
  }

  function clearErrors() {
    for (const id of ['customer-error', 'otp-error']) $(id).textContent = '';
    $('message').textContent = '';
    $('message').hidden = true;
  }

  function showAttempts(left) {
    $('attempts').textContent = left < 3 ? left + ' attempt' + (left === 1 ? '' : 's') + ' left' : '';
  }

  function showRefusal(code, left) {
    const refusal = data.refusals[code] || { field: 'form', text: 'Your answer could not be processed. Please try again.' };
    let text = fill(refusal.text, left);
    if (code === 'OTP_INVALID') text += ' ' + left + ' attempt' + (left === 1 ? '' : 's') + ' left.';
    if (refusal.field === 'form') {
      $('message').textContent = text;
      $('message').hidden = false;
    } else {
      $(refusal.field + '-error').textContent = text;
      $(refusal.field === 'otp' ? 'otp' : 'customer-value').focus();
    }
  }

  function busy(on) {
    $('approve-button').disabled = on;
    $('reject-button').disabled = on;
  }

  async function post(path, body) {
    const response = await fetch(base + path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(body),
    });
    return { ok: response.ok, body: await response.json().catch(() => ({})) };
  }

  // The page as the server sees it now: after a refusal that ended the consent (three wrong
  // OTPs, expiry, a decision made elsewhere) a reload shows why and the way back to the TPP.
  async function refreshed(code) {
    const response = await fetch(base, { headers: { accept: 'application/json' } }).catch(() => null);
    const view = response && response.ok ? await response.json() : null;
    if (view && view.status !== 'AWAITING_AUTHORISATION') {
      window.location.assign(base);
      return true;
    }
    if (view) showAttempts(view.otp_attempts_left);
    showRefusal(code, view ? view.otp_attempts_left : data.otpAttemptsLeft);
    return false;
  }

  approveForm.addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors();
    const type = document.querySelector('input[name="customer_type"]:checked').value;
    const value = $('customer-value').value.trim();
    const otp = $('otp').value.trim();
    busy(true);
    try {
      const answer = await post('/approve', { customer: { type, value }, otp });
      if (answer.ok) return window.location.assign(answer.body.redirect_to);
      const code = (answer.body.error || {}).code;
      $('otp').value = '';
      if (await refreshed(code)) return;
    } catch {
      showRefusal('SERVICE_UNAVAILABLE', data.otpAttemptsLeft);
    }
    busy(false);
  });

  $('reject-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    clearErrors();
    busy(true);
    try {
      const answer = await post('/reject', { page_token: $('page-token').value });
      if (answer.ok) return window.location.assign(answer.body.redirect_to);
      const code = (answer.body.error || {}).code;
      // The page's token ran out: the page again, with a fresh one, says so.
      if (code === 'UNAUTHORIZED') return window.location.assign(base + '?error=UNAUTHORIZED');
      if (await refreshed(code)) return;
    } catch {
      showRefusal('SERVICE_UNAVAILABLE', data.otpAttemptsLeft);
    }
    busy(false);
  });

  for (const radio of document.querySelectorAll('input[name="customer_type"]')) {
    radio.addEventListener('change', () => {
      if (radio.checked) $('customer-label').textContent = radio.value === 'iban' ? 'Your IBAN' : 'Your alias (e.g. amina or amina@oasis)';
    });
  }
})();
`;
