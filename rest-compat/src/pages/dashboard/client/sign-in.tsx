import { useState } from 'preact/hooks';
import type { ApiError } from './api';
import { ErrorLine } from './shared';

/** The merchant key, typed or pasted; checked by the API itself (currentMerchant), whose refusal is shown as it is. */
export function SignIn({
  onSubmit,
  error,
  busy,
}: {
  onSubmit: (key: string) => void;
  error: ApiError | null;
  busy: boolean;
}) {
  const [key, setKey] = useState('');
  return (
    <main class="sign-in card">
      <h1>Merchant dashboard</h1>
      <p class="meta">
        Sign in with your merchant API key (mk_test_… or mk_live_…). It is sent once to start a session of 8 hours and
        is not kept in the browser.
      </p>
      <form
        id="sign-in-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (key.trim()) onSubmit(key.trim());
        }}
      >
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autocomplete="off"
          autocapitalize="none"
          spellcheck={false}
          required
          value={key}
          onInput={(event) => setKey((event.target as HTMLInputElement).value)}
        />
        <button type="submit" id="sign-in-button" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
      <ErrorLine error={error} id="sign-in-error" />
    </main>
  );
}
