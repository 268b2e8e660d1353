import { useState } from 'preact/hooks';
import { ApiError, describeError, graphql } from './api';
import { dayRange } from './filters';
import { formatTime } from './format';
import { RETRY_DELIVERY } from './operations';
import { EVENT, EVENTS, MERCHANT_EVENTS, type EventConnection, type EventDetail as Event } from './operations-webhooks';
import { ErrorLine, Field, hrefOf, StatusBadge, useDashboard, usePoll } from './shared';

const PAGE_SIZE = 30;
const EVENTS_POLL_MS = 5_000;

/** Where an event's aggregate is shown in the dashboard, if it is. */
function aggregateHref(id: string): string | null {
  if (id.startsWith('ops_')) return hrefOf('sessions', id);
  if (id.startsWith('mdt_')) return hrefOf('mandates', id);
  return null;
}

/** The merchant's events of the last 30 days (the API keeps no more), newest first, by type and range of days. */
export function EventList() {
  const { merchant } = useDashboard();
  const [type, setType] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [applied, setApplied] = useState<{ type?: string; from?: string; to?: string }>({});
  const [formError, setFormError] = useState<ApiError | null>(null);
  const [older, setOlder] = useState<Event[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const key = JSON.stringify(applied);
  const page = (after: string | null) =>
    graphql<{ events: EventConnection }>(EVENTS, { ...applied, first: PAGE_SIZE, after }).then(
      (answer) => answer.events,
    );
  const { data, error } = usePoll(() => page(null), EVENTS_POLL_MS, [merchant.id, key]);
  const first = data?.edges.map((edge) => edge.node) ?? [];
  const shown = [...first, ...older.filter((event) => !first.some((row) => row.id === event.id))];
  const next = cursor === undefined ? data?.pageInfo.endCursor : cursor;
  const hasMore = cursor === undefined ? data?.pageInfo.hasNextPage : cursor !== null;

  const apply = () => {
    const range = dayRange(from, to);
    if (!range)
      return setFormError(new ApiError('VALIDATION_ERROR', 'to: pick a first day on or before the last day.'));
    setFormError(null);
    setOlder([]);
    setCursor(undefined);
    setApplied({ ...(type ? { type } : {}), ...range });
  };
  const loadMore = async () => {
    if (!next) return;
    try {
      const answer = await page(next);
      setOlder((current) => [...current, ...(answer.edges.map((edge) => edge.node) as Event[])]);
      setCursor(answer.pageInfo.hasNextPage ? answer.pageInfo.endCursor : null);
    } catch (caught) {
      setFormError(describeError(caught));
    }
  };

  return (
    <section class="card">
      <h1>Events</h1>
      <form
        class="filters"
        id="events-filter"
        role="search"
        onSubmit={(event) => {
          event.preventDefault();
          apply();
        }}
      >
        <div class="filter-grid">
          <div>
            <label for="events-type">Type</label>
            <select id="events-type" value={type} onInput={(e) => setType((e.target as HTMLSelectElement).value)}>
              <option value="">Any</option>
              {MERCHANT_EVENTS.map((name) => (
                <option key={name} value={name}>
                  {name}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="events-from">From</label>
            <input
              id="events-from"
              type="date"
              value={from}
              onInput={(e) => setFrom((e.target as HTMLInputElement).value)}
            />
          </div>
          <div>
            <label for="events-to">To</label>
            <input id="events-to" type="date" value={to} onInput={(e) => setTo((e.target as HTMLInputElement).value)} />
          </div>
        </div>
        <div class="actions">
          <button type="submit" id="events-apply">
            Apply
          </button>
        </div>
      </form>
      <ErrorLine error={formError ?? error} id="events-error" />
      {data && shown.length === 0 && <p class="meta">No events {key === '{}' ? 'in the last 30 days' : 'match'}.</p>}
      <ul class="rows" id="events">
        {shown.map((event) => (
          <li key={event.id} class="row" data-event-id={event.id} data-type={event.type}>
            <a href={hrefOf('events', event.id)} class="row-link">
              <span class="row-main">
                <span class="delivery-event">{event.type}</span>
                <span class="row-sub">
                  {event.aggregateId} · #{event.sequence}
                </span>
              </span>
              <span class="row-id">{event.id}</span>
              <span class="row-time">{formatTime(event.createdAt)}</span>
              <span class="row-status">{event.livemode ? 'live' : 'test'}</span>
            </a>
          </li>
        ))}
      </ul>
      {hasMore && (
        <button type="button" class="secondary" id="events-more" onClick={() => void loadMore()}>
          Older events
        </button>
      )}
    </section>
  );
}

/** One event: its envelope's data and every delivery of it, to each endpoint, with a retry where the last failed. */
export function EventDetail({ id }: { id: string }) {
  const { merchant } = useDashboard();
  const { data, error, refresh } = usePoll(
    () => graphql<{ event: Event }>(EVENT, { id }).then((answer) => answer.event),
    5_000,
    [merchant.id, id],
  );
  const [retryError, setRetryError] = useState<ApiError | null>(null);
  const retry = async (deliveryId: string) => {
    setRetryError(null);
    try {
      await graphql(RETRY_DELIVERY, { id: deliveryId });
      await refresh();
    } catch (caught) {
      setRetryError(describeError(caught));
    }
  };
  const link = data ? aggregateHref(data.aggregateId) : null;
  return (
    <section class="card" id="event-detail">
      <p class="back">
        <a href={hrefOf('events')}>← Events</a>
      </p>
      <h1>{data ? data.type : error ? 'Event not found' : 'Event'}</h1>
      <ErrorLine error={error ?? retryError} id="event-error" />
      {data && (
        <>
          <dl class="fields">
            <Field label="Id">{data.id}</Field>
            <Field label="Created">{formatTime(data.createdAt)}</Field>
            <Field label="Of">{link ? <a href={link}>{data.aggregateId}</a> : data.aggregateId}</Field>
            <Field label="Sequence">{data.sequence}</Field>
          </dl>
          <h2>Data</h2>
          <pre class="json" id="event-data">
            {prettyJson(data.data)}
          </pre>
          <h2>Deliveries</h2>
          {data.deliveries.length === 0 && <p class="meta">No endpoint was sent this event.</p>}
          <ul class="rows" id="event-deliveries">
            {data.deliveries.map((delivery) => (
              <li key={delivery.id} class="delivery" data-delivery-id={delivery.id} data-status={delivery.status}>
                <div class="delivery-head">
                  <span class="delivery-event">
                    {delivery.endpointId ? (
                      <a href={hrefOf('webhooks', delivery.endpointId)}>{delivery.url ?? delivery.endpointId}</a>
                    ) : (
                      (delivery.url ?? 'no URL')
                    )}
                  </span>
                  <StatusBadge status={delivery.status} />
                  {delivery.status === 'FAILED' && (
                    <button type="button" class="retry" onClick={() => void retry(delivery.id)}>
                      Retry now
                    </button>
                  )}
                </div>
                <p class="meta">
                  {delivery.id} · {delivery.attempts} attempt{delivery.attempts === 1 ? '' : 's'}
                  {delivery.lastStatusCode != null ? ` · last HTTP ${delivery.lastStatusCode}` : ''}
                  {delivery.deliveredAt ? ` · delivered ${formatTime(delivery.deliveredAt)}` : ''}
                </p>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
