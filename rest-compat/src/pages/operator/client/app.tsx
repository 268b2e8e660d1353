import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, describeError, type LiveState } from '../../dashboard/client/api';
import type { CurrencyExponents } from '../../dashboard/client/format';
import { ErrorLine, hrefOf, useHashRoute, usePoll } from '../../dashboard/client/shared';
import { endSession, graphql, startSession } from './api';
import { CURRENT_OPERATOR, type Operator } from './operations';
import { ParticipantList } from './participants';
import { ParticipantView } from './participant';
import { SettlementView } from './settlement';
import { AuditView } from './audit';
import { AdminKeysView } from './admin-keys';
import { AttentionView } from './attention';
import { consoleLiveClient, LiveContext } from './live';

export function App({ exponents, signedIn }: { exponents: CurrencyExponents; signedIn: boolean }) {
  const [operator, setOperator] = useState<Operator | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [signingOut, setSigningOut] = useState(false);

  /** Who the session cookie signs in, if anyone: asked of the API, which alone can read the cookie. */
  const resume = async () => {
    const { currentOperator } = await graphql<{ currentOperator: Operator }>(CURRENT_OPERATOR);
    setOperator(currentOperator);
  };

  const signIn = async (key: string) => {
    setBusy(true);
    setError(null);
    try {
      await startSession(key);
      await resume();
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setBusy(false);
    }
  };

  /** The console leaves the page first (its polls and socket stop), then the session ends; the form once it has. */
  const signOut = async () => {
    setSigningOut(true);
    setError(null);
    setOperator(null);
    try {
      await endSession();
    } finally {
      setSigningOut(false);
    }
  };

  // A reload keeps the operator signed in while the cookie lasts; without one, the form at once (no refused call).
  useEffect(() => {
    if (signedIn) resume().catch(() => undefined);
  }, []);

  /** A refusal of the session itself (signed out elsewhere, key revoked): back to the sign-in form. */
  const onSessionLost = (lost: ApiError) => {
    setOperator(null);
    setError(lost);
  };

  if (signingOut)
    return (
      <main class="sign-in card" id="signing-out">
        <p class="meta">Signing out…</p>
      </main>
    );
  if (!operator) return <SignIn onSubmit={(key) => void signIn(key)} error={error} busy={busy} />;
  return (
    <Console operator={operator} exponents={exponents} onSessionLost={onSessionLost} onSignOut={() => void signOut()} />
  );
}

function SignIn({ onSubmit, error, busy }: { onSubmit: (key: string) => void; error: ApiError | null; busy: boolean }) {
  const [key, setKey] = useState('');
  return (
    <main class="sign-in card">
      <h1>Operator console</h1>
      <p class="meta">
        Sign in with an admin key (the configured ADMIN_KEY or a named adm_… key). It is sent once to start a session of
        8 hours and is not kept in the browser.
      </p>
      <form
        id="sign-in-form"
        onSubmit={(event) => {
          event.preventDefault();
          if (key.trim()) {
            onSubmit(key.trim());
            setKey('');
          }
        }}
      >
        <label for="admin-key">Admin key</label>
        <input
          id="admin-key"
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

/**
 * How often an open console asks whether its session still holds (issue 50: the console of a
 * revoked key closes within 5 s, even while nobody clicks). The views' own polls are slower.
 */
const SESSION_CHECK_MS = 4_000;

const SECTIONS = [
  ['participants', 'Participants'],
  ['attention', 'Attention'],
  ['settlement', 'Settlement'],
  ['audit', 'Audit log'],
  ['keys', 'Admin keys'],
] as const;

function Console({
  operator,
  exponents,
  onSessionLost,
  onSignOut,
}: {
  operator: Operator;
  exponents: CurrencyExponents;
  onSessionLost: (error: ApiError) => void;
  onSignOut: () => void;
}) {
  const [section = 'participants', kind, id] = useHashRoute();
  // Any view's refusal of the session ends the console at once, with the API's words.
  const guard = (error: ApiError | null) => {
    if (error?.code === 'UNAUTHORIZED') onSessionLost(error);
  };
  const session = usePoll(() => graphql<{ currentOperator: Operator }>(CURRENT_OPERATOR), SESSION_CHECK_MS, []);
  useEffect(() => guard(session.error), [session.error]);
  // One socket for the console's live views; a refusal of it (4403) is checked at once, which
  // signs the console out when the session is gone.
  const [liveState, setLiveState] = useState<LiveState>('idle');
  const client = useMemo(() => consoleLiveClient(setLiveState, () => void session.refresh()), [operator.name]);
  useEffect(() => () => void client.dispose(), [client]);
  return (
    <LiveContext.Provider value={{ client, state: liveState }}>
      <header class="top">
        <div class="who">
          <strong>Operator console</strong>
          <span class="meta" id="operator-name">
            {operator.name}
          </span>
        </div>
        <nav aria-label="Console">
          {SECTIONS.map(([name, label]) => (
            <a
              key={name}
              href={hrefOf(name)}
              id={`nav-${name}`}
              class={section === name ? 'current' : ''}
              aria-current={section === name ? 'page' : undefined}
            >
              {label}
            </a>
          ))}
        </nav>
        <button type="button" class="secondary" id="sign-out" onClick={onSignOut}>
          Sign out
        </button>
      </header>
      <main class="content">
        {section === 'participants' && kind && id ? (
          <ParticipantView kind={kind} id={id} key={`${kind}/${id}`} exponents={exponents} onError={guard} />
        ) : section === 'settlement' ? (
          <SettlementView exponents={exponents} onError={guard} />
        ) : section === 'attention' ? (
          <AttentionView exponents={exponents} onError={guard} />
        ) : section === 'audit' ? (
          <AuditView onError={guard} />
        ) : section === 'keys' ? (
          <AdminKeysView operator={operator} onError={guard} />
        ) : section === 'participants' ? (
          <ParticipantList onError={guard} />
        ) : (
          <ErrorLine error={new ApiError('NOT_FOUND', 'There is no such page in the console.')} />
        )}
      </main>
    </LiveContext.Provider>
  );
}
