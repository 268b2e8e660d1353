import { useEffect, useRef, useState } from 'preact/hooks';
import { describeError, graphql, subscribe, type ApiError } from './api';
import { formatTime, isFinalSession, mergeNewestFirst } from './format';
import { SESSION_UPDATED, SESSIONS, type Connection, type SessionRow } from './operations';
import { Amount, ErrorLine, hrefOf, StatusBadge, useDashboard } from './shared';

const PAGE_SIZE = 20;
/** How often the first page is asked again, so that sessions created elsewhere appear (the API has no "new session" subscription). */
export const LIST_POLL_MS = 3_000;

/**
 * The merchant's sessions, newest first: the first page polled for new ones, older pages on
 * demand, and every non-final session shown followed over `paymentSessionUpdated`.
 */
export function SessionList() {
  const { merchant, live } = useDashboard();
  const [sessions, setSessions] = useState<SessionRow[]>([]);
  const [loaded, setLoaded] = useState(false);
  const [more, setMore] = useState<{ hasNextPage: boolean; endCursor: string | null }>({
    hasNextPage: false,
    endCursor: null,
  });
  const [error, setError] = useState<ApiError | null>(null);
  const [loadingMore, setLoadingMore] = useState(false);

  const page = (after: string | null) =>
    graphql<{ paymentSessions: Connection<SessionRow> }>(SESSIONS, { first: PAGE_SIZE, after }).then(
      (data) => data.paymentSessions,
    );

  useEffect(() => {
    let stopped = false;
    let firstAnswer = true;
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
  }, [merchant.id]);

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
          ({ paymentSessionUpdated }) => setSessions((current) => mergeNewestFirst(current, [paymentSessionUpdated])),
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
      <div class="section-head">
        <h1>Payment sessions</h1>
        <OpenById />
      </div>
      <ErrorLine error={error} id="sessions-error" />
      {loaded && sessions.length === 0 && (
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

function OpenById() {
  const [id, setId] = useState('');
  return (
    <form
      class="inline-form"
      id="open-session-form"
      onSubmit={(event) => {
        event.preventDefault();
        if (id.trim()) location.hash = hrefOf('sessions', id.trim());
      }}
    >
      <label for="open-session-id" class="visually-hidden">
        Session id
      </label>
      <input
        id="open-session-id"
        placeholder="ops_… session id"
        autocomplete="off"
        spellcheck={false}
        value={id}
        onInput={(event) => setId((event.target as HTMLInputElement).value)}
      />
      <button type="submit" class="secondary">
        Open
      </button>
    </form>
  );
}
