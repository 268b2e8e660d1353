import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError, graphql, subscribe, type ApiError } from './api';
import { applyFilter, FilterBar } from './filter-bar';
import type { ListFilter } from './filters';
import { formatTime, isFinalSession, mergeNewestFirst } from './format';
import { SESSION_UPDATED, SESSIONS, type Connection, type SessionRow, filterVariables, hasFilter } from './operations';
import { Amount, ErrorLine, hrefOf, StatusBadge, useDashboard } from './shared';

const PAGE_SIZE = 20;
/** How often the first page is asked again, so that sessions created elsewhere appear (the API has no "new session" subscription). */
export const LIST_POLL_MS = 3_000;

export const SESSION_STATUSES = [
  'PENDING',
  'PROCESSING',
  'SETTLEMENT_PENDING',
  'COMPLETED',
  'FAILED',
  'EXPIRED',
] as const;

/**
 * The merchant's sessions, newest first, under the filter applied (status, created range,
 * reference, amount range, one metadata key=value): the first page polled for new ones, older pages on demand, and every
 * non-final session shown followed over `paymentSessionUpdated`.
 */
export function SessionList() {
  const { merchant, live, exponents } = useDashboard();
  const [filter, setFilter] = useState<ListFilter>({});
  const [filterError, setFilterError] = useState<ApiError | null>(null);
  const filterKey = JSON.stringify(filter);
  const [sessions, setSessions] = useState<SessionRow[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [more, setMore] = useState<{ hasNextPage: boolean; endCursor: string | null }>({
    hasNextPage: false,
    endCursor: null,
  });
  const [error, setError] = useState<ApiError | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);

  const page = (after: string | null) =>
    graphql<{ paymentSessions: Connection<SessionRow> }>(SESSIONS(hasFilter(filter)), {
      first: PAGE_SIZE,
      after,
      ...filterVariables(filter),
    }).then((data) => data.paymentSessions);

  useEffect(() => {
    let stopped = false;
    let firstAnswer = true;
    // Another filter: another list, not the old one narrowed.
    setSessions([]);
    setLoaded(false);
    const refresh = async () => {
      try {
        const first = await page(null);
        if (stopped) return;
        setSessions((current) =>
          mergeNewestFirst(
            current,
            first.edges.map((edge) => edge.node),
          ),
        );
        // Paging continues from the oldest loaded session, which only the first answer sets.
        if (firstAnswer) setMore(first.pageInfo);
        firstAnswer = false;
        setLoaded(true);
        setError(null);
      } catch (caught) {
        if (!stopped) setError(describeError(caught));
      }
    };
    void refresh();
    const timer = setInterval(() => void refresh(), LIST_POLL_MS);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [merchant.id, filterKey]);

  // One subscription per shown session that can still change; it completes by itself at a final status.
  const followed = useRef(new Map<string, () => void>());
  useEffect(() => {
    const open = new Set(sessions.filter((session) => !isFinalSession(session.status)).map((session) => session.id));
    for (const id of open) {
      if (followed.current.has(id)) continue;
      followed.current.set(
        id,
        subscribe<{ paymentSessionUpdated: SessionRow }>(
          live,
          SESSION_UPDATED,
          { id },
          // Only a row still shown is updated: a message arriving after another filter was applied adds nothing.
          ({ paymentSessionUpdated }) =>
            setSessions((current) =>
              current.some((row) => row.id === paymentSessionUpdated.id)
                ? mergeNewestFirst(current, [paymentSessionUpdated])
                : current,
            ),
          (refusal) => setError(refusal),
        ),
      );
    }
    for (const [id, unsubscribe] of followed.current) {
      if (open.has(id)) continue;
      unsubscribe();
      followed.current.delete(id);
    }
  }, [sessions, live]);
  useEffect(
    () => () => {
      for (const unsubscribe of followed.current.values()) unsubscribe();
      followed.current.clear();
    },
    [],
  );

  const loadMore = async () => {
    if (!more.endCursor) return;
    setLoadingMore(true);
    try {
      const next = await page(more.endCursor);
      setSessions((current) =>
        mergeNewestFirst(
          current,
          next.edges.map((edge) => edge.node),
        ),
      );
      setMore(next.pageInfo);
    } catch (caught) {
      setError(describeError(caught));
    } finally {
      setLoadingMore(false);
    }
  };

  return (
    <section class="card">
      <h1>Payment sessions</h1>
      <FilterBar
        id="sessions"
        statuses={SESSION_STATUSES}
        searchLabel="Search"
        searchPlaceholder="ops_… id or reference"
        currencies={Object.keys(exponents)}
        metadata
        onApply={(form, currency) =>
          applyFilter(
            form,
            {
              idPrefix: 'ops_',
              searchField: 'reference',
              metadata: true,
              amounts: currency ? { currency, exponents } : undefined,
            },
            (id) => (location.hash = hrefOf('sessions', id)),
            setFilter,
            setFilterError,
          )
        }
      />
      <ErrorLine error={filterError ?? error} id="sessions-error" />
      {loaded && sessions.length === 0 && filterKey !== '{}' && (
        <p class="meta" id="sessions-none">
          No session matches these filters.
        </p>
      )}
      {loaded && sessions.length === 0 && filterKey === '{}' && (
        <p class="meta">
          No sessions yet. Create one with POST /payments/sessions (or createPaymentSession): it appears here within
          seconds.
        </p>
      )}
      <ul class="rows" id="sessions">
        {sessions.map((session) => (
          <li key={session.id} class="row" data-session-id={session.id}>
            <a href={hrefOf('sessions', session.id)} class="row-link">
              <span class="row-main">
                <Amount amount={session.amount} currency={session.currency} />
                <span class="row-sub">{session.reference ?? session.description ?? session.destination.value}</span>
              </span>
              <span class="row-id">{session.id}</span>
              <span class="row-time">{formatTime(session.createdAt)}</span>
              <span class="row-status" data-status={session.status}>
                <StatusBadge status={session.status} />
              </span>
            </a>
          </li>
        ))}
      </ul>
      {more.hasNextPage && (
        <button
          type="button"
          class="secondary"
          id="sessions-more"
          disabled={loadingMore}
          onClick={() => void loadMore()}
        >
          {loadingMore ? 'Loading…' : 'Older sessions'}
        </button>
      )}
    </section>
  );
}
