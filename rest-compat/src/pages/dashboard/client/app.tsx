import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, describeError, graphql, liveClient, type LiveState } from './api';
import type { CurrencyExponents } from './format';
import { EndpointDetail } from './endpoint-detail';
import { EventDetail, EventList } from './events';
import { HomeView } from './home';
import { MandateDetail, MandateList } from './mandates';
import { RefundList } from './refund-list';
import { CURRENT_MERCHANT, type Merchant } from './operations';
import { SessionDetailView } from './session-detail';
import { SessionList } from './sessions';
import { DashboardContext, hrefOf, useHashRoute, type Dashboard } from './shared';
import { endSession, startSession } from './session';
import { SignIn } from './sign-in';
import { WebhooksView } from './webhooks';
import { TestBanner, WorldBadge } from './world';

/** The connection's status (the graphql-ws socket), in words that cannot be read as the world (WorldBadge says that). */
const CONNECTION_LABELS: Record<LiveState, string> = { live: 'Connected', idle: 'Up to date', down: 'Reconnecting' };
const CONNECTION_TITLES: Record<LiveState, string> = {
  live: 'Connected: following open sessions over graphql-ws',
  idle: 'No open session to follow, so no connection; the list is refreshed every few seconds',
  down: 'The connection dropped and is being retried; the list is still refreshed every few seconds',
};

export function App({ exponents }: { exponents: CurrencyExponents }) {
  const [merchant, setMerchant] = useState<Merchant | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [signingOut, setSigningOut] = useState(false);

  /** Who the session cookie signs in, if anyone: asked of the API, which alone can read the cookie. */
  const resume = async () => {
    const { currentMerchant } = await graphql<{ currentMerchant: Merchant }>(CURRENT_MERCHANT);
    setMerchant(currentMerchant);
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

  /** The dashboard leaves the page first (its polls and socket stop), then the session ends; the form once it has. */
  const signOut = async () => {
    setSigningOut(true);
    setMerchant(null);
    try {
      await endSession();
    } finally {
      setSigningOut(false);
    }
  };

  // A reload keeps the merchant signed in while the session cookie lasts; without one, the sign-in form.
  useEffect(() => {
    resume().catch(() => undefined);
  }, []);

  if (signingOut)
    return (
      <main class="sign-in card" id="signing-out">
        <p class="meta">Signing out…</p>
      </main>
    );
  if (!merchant) return <SignIn onSubmit={(key) => void signIn(key)} error={error} busy={busy} />;
  return <SignedInDashboard merchant={merchant} exponents={exponents} onSignOut={() => void signOut()} />;
}

function SignedInDashboard({
  merchant,
  exponents,
  onSignOut,
}: {
  merchant: Merchant;
  exponents: CurrencyExponents;
  onSignOut: () => void;
}) {
  const [liveState, setLiveState] = useState<LiveState>('idle');
  const live = useMemo(() => liveClient(setLiveState), [merchant.id]);
  useEffect(() => () => void live.dispose(), [live]);
  const dashboard: Dashboard = { merchant, live, exponents };
  const route = useHashRoute();
  const [section = 'home', id] = route;
  const testMode = merchant.mode === 'test';

  return (
    <DashboardContext.Provider value={dashboard}>
      {testMode && <TestBanner />}
      <header class="top">
        <div class="who">
          <span class="who-name">
            <strong id="merchant-name">{merchant.name}</strong> <WorldBadge mode={merchant.mode} />
          </span>
          <span class="meta" id="merchant-id">
            {merchant.id}
          </span>
        </div>
        <nav aria-label="Dashboard">
          {SECTIONS.map(([name, label]) => (
            <a
              key={name}
              href={hrefOf(name)}
              class={section === name ? 'current' : ''}
              aria-current={section === name ? 'page' : undefined}
              id={`nav-${name}`}
            >
              {label}
            </a>
          ))}
        </nav>
        <div class="session-controls">
          <span
            class={`connection-dot ${liveState}`}
            id="connection-state"
            data-state={liveState}
            title={CONNECTION_TITLES[liveState]}
          >
            {CONNECTION_LABELS[liveState]}
          </span>
          <button type="button" class="secondary" id="sign-out" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <main class="content">{view(section, id)}</main>
    </DashboardContext.Provider>
  );
}

/** The views, in the navigation's order: a hash route's first part. */
const SECTIONS = [
  ['home', 'Home'],
  ['sessions', 'Sessions'],
  ['mandates', 'Mandates'],
  ['refunds', 'Refunds'],
  ['webhooks', 'Webhooks'],
  ['events', 'Events'],
] as const;

function view(section: string, id: string | undefined) {
  if (section === 'home') return <HomeView />;
  if (section === 'sessions') return id ? <SessionDetailView id={id} key={id} /> : <SessionList />;
  if (section === 'mandates') return id ? <MandateDetail id={id} key={id} /> : <MandateList />;
  if (section === 'refunds') return <RefundList />;
  if (section === 'webhooks') return id ? <EndpointDetail id={id} key={id} /> : <WebhooksView />;
  if (section === 'events') return id ? <EventDetail id={id} key={id} /> : <EventList />;
  return <ErrorPage error={new ApiError('NOT_FOUND', 'There is no such page in the dashboard.')} />;
}

function ErrorPage({ error }: { error: ApiError }) {
  return (
    <section class="card">
      <p class="error" role="alert">
        <code class="error-code">{error.code}</code> {error.message}
      </p>
    </section>
  );
}
