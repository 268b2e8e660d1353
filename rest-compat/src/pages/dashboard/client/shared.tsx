import { createContext, type ComponentChildren } from 'preact';
import { useContext, useEffect, useRef, useState } from 'preact/hooks';
import type { Client } from 'graphql-ws';
import { describeError, type ApiError } from './api';
import { formatAmount, type CurrencyExponents } from './format';
import type { Merchant } from './operations';

/** What every view of a signed-in merchant shares. */
export interface Dashboard {
  merchant: Merchant;
  live: Client;
  exponents: CurrencyExponents;
}

export const DashboardContext = createContext<Dashboard | null>(null);

export function useDashboard(): Dashboard {
  const dashboard = useContext(DashboardContext);
  if (!dashboard) throw new Error('useDashboard outside a signed-in dashboard');
  return dashboard;
}

/** The API's own refusal: its code, then its message. */
export function ErrorLine({ error, id }: { error: ApiError | null; id?: string }) {
  if (!error) return null;
  return (
    <p class="error" role="alert" id={id}>
      <code class="error-code">{error.code}</code> <span class="error-message">{error.message}</span>
    </p>
  );
}

export function StatusBadge({ status }: { status: string }) {
  return <span class={`badge badge-${status.toLowerCase().replace(/_/g, '-')}`}>{status}</span>;
}

export function Amount({ amount, currency }: { amount: number; currency: string }) {
  const { exponents } = useDashboard();
  return <span class="amount">{formatAmount(amount, currency, exponents)}</span>;
}

export function Field({ label, children }: { label: string; children: ComponentChildren }) {
  return (
    <div class="field">
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/**
 * Runs `load` now and every `intervalMs` while the view is shown (and afresh when `deps` change:
 * another key or id); keeps the last answer and the last refusal. A slow answer never overwrites
 * a newer one. A new interval only changes the pace, not what is shown.
 */
export function usePoll<T>(
  load: () => Promise<T>,
  intervalMs: number,
  deps: unknown[],
): { data: T | null; error: ApiError | null; refresh: () => Promise<void> } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const generation = useRef(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  const refresh = async () => {
    const mine = ++generation.current;
    try {
      const answer = await loadRef.current();
      if (mine !== generation.current) return;
      setData(answer);
      setError(null);
    } catch (caught) {
      if (mine === generation.current) setError(describeError(caught));
    }
  };
  useEffect(() => {
    setData(null);
    setError(null);
    void refresh();
    return () => {
      generation.current += 1;
    };
  }, deps);
  useEffect(() => {
    const timer = setInterval(() => void refresh(), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs, ...deps]);
  return { data, error, refresh };
}

/** The location hash as path parts: "#/sessions/ops_1" -> ["sessions", "ops_1"]. Ids live here, the key never does. */
export function useHashRoute(): string[] {
  const read = () =>
    location.hash
      .replace(/^#\/?/, '')
      .split('/')
      .filter(Boolean)
      .map((part) => decodeURIComponent(part));
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

export const hrefOf = (...parts: string[]): string => `#/${parts.map(encodeURIComponent).join('/')}`;
