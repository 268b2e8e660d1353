import { useState } from 'preact/hooks';
import { TEST_PAYER_NAMES, TEST_PAYER_OTP } from './test-payers';

/**
 * Which world the signed-in merchant acts in, as a badge of its own beside the merchant's name:
 * TEST or LIVE, in words as well as colour, and never confused with the connection's status
 * (a green "Live" pill used to mean the socket).
 */
export function WorldBadge({ mode }: { mode: string }) {
  const test = mode === 'test';
  const meaning = test
    ? 'Test mode: this key moves money at test cores only, never real money'
    : 'Live mode: payments move real money';
  return (
    <span
      class={`world-badge ${test ? 'test' : 'live'}`}
      id="world-badge"
      data-world={test ? 'test' : 'live'}
      title={meaning}
      aria-label={meaning}
    >
      {test ? 'TEST' : 'LIVE'}
    </span>
  );
}

/**
 * The test world's banner: one short sentence always, the rest (where the money moves, the test
 * payers) beside it on a desktop and behind "more" on a phone, so that at 375 px it takes two
 * lines of the screen rather than a third of it.
 */
export function TestBanner() {
  const [open, setOpen] = useState(false);
  return (
    <div class={`test-banner${open ? ' open' : ''}`} id="test-banner" role="status">
      <span class="banner-lead">Test mode: no real money moves.</span>{' '}
      <span class="banner-rest" id="test-banner-rest">
        This merchant's key is mk_test_…, so its payments move money at test cores only (the gateway's built-in test
        bank), never at a bank's live core.{' '}
        <span id="test-payers">
          Test payers (OTP {TEST_PAYER_OTP}): {TEST_PAYER_NAMES.map((name) => `${name}@<bank>`).join(', ')}.
        </span>
      </span>{' '}
      <button
        type="button"
        class="banner-more"
        id="test-banner-more"
        aria-expanded={open}
        aria-controls="test-banner-rest"
        onClick={() => setOpen(!open)}
      >
        {open ? 'less' : 'more'}
      </button>
    </div>
  );
}
