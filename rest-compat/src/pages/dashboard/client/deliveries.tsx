import { useEffect, useState } from 'preact/hooks';
import { describeError, graphql, type ApiError } from './api';
import { deliveryNeedsRetry, formatTime } from './format';
import {
  DELIVERIES,
  RETRY_DELIVERY,
  type Connection,
  type WebhookDelivery,
  filterVariables,
  hasFilter,
} from './operations';
import { applyFilter, FilterBar } from './filter-bar';
import type { ListFilter } from './filters';
import { ErrorLine, hrefOf, StatusBadge, useDashboard, usePoll } from './shared';

const DELIVERY_STATUSES = ['PENDING', 'HELD', 'DELIVERED', 'FAILED'] as const;

/**
 * Deliveries have no subscription: the list is asked again while it is shown, often while one is
 * still on its way (or was just retried), seldom once all are settled, to spare the key's read budget.
 */
const BUSY_POLL_MS = 2_000;
const SETTLED_POLL_MS = 10_000;

/**
 * Webhook deliveries with every attempt, newest first: one session's (aggregateId) or all of the
 * merchant's. A delivery whose last attempt failed can be sent again from here (retryWebhookDelivery).
 */
export function DeliveryList({
  aggregateId,
  refreshKey,
  filterable,
}: {
  aggregateId?: string;
  refreshKey?: string;
  /** With the filter bar (status, created range, event name; an evt_ id opens that event). */
  filterable?: boolean;
}) {
  const { merchant } = useDashboard();
  const [filter, setFilter] = useState<ListFilter>({});
  const [filterError, setFilterError] = useState<ApiError | null>(null);
  const filterKey = JSON.stringify(filter);
  const [retryError, setRetryError] = useState<ApiError | null>(null);
  const [retrying, setRetrying] = useState<string | null>(null);
  const [pace, setPace] = useState(BUSY_POLL_MS);
  const { data, error, refresh } = usePoll(
    () =>
      graphql<{ webhookDeliveries: Connection<WebhookDelivery> }>(DELIVERIES(hasFilter(filter)), {
        first: 50,
        aggregateId: aggregateId ?? null,
        ...filterVariables(filter),
      }).then((answer) => answer.webhookDeliveries.edges.map((edge) => edge.node)),
    pace,
    [merchant.id, aggregateId, refreshKey, filterKey],
  );
  const settled = data != null && data.every((delivery) => delivery.status !== 'PENDING');
  useEffect(() => setPace(settled && retrying == null ? SETTLED_POLL_MS : BUSY_POLL_MS), [settled, retrying]);

  const retry = async (id: string) => {
    setRetrying(id);
    setRetryError(null);
    try {
      await graphql(RETRY_DELIVERY, { id });
      await refresh();
    } catch (caught) {
      setRetryError(describeError(caught));
    } finally {
      setRetrying(null);
    }
  };

  return (
    <div class="deliveries" id="deliveries">
      {filterable && (
        <FilterBar
          id="deliveries"
          statuses={DELIVERY_STATUSES}
          searchLabel="Event"
          searchPlaceholder="payment.completed or an evt_… id"
          onApply={(form) =>
            applyFilter(
              form,
              { idPrefix: 'evt_', searchField: 'event' },
              (id) => (location.hash = hrefOf('events', id)),
              setFilter,
              setFilterError,
            )
          }
        />
      )}
      <ErrorLine error={filterError ?? error ?? retryError} id="deliveries-error" />
      {data && data.length === 0 && filterKey !== '{}' && (
        <p class="meta" id="deliveries-none">
          No delivery matches these filters.
        </p>
      )}
      {data && data.length === 0 && filterKey === '{}' && (
        <p class="meta">
          No webhook deliveries {aggregateId ? 'for this session yet' : 'yet'}. Set a webhook URL to receive events.
        </p>
      )}
      <ul class="rows">
        {(data ?? []).map((delivery) => (
          <li key={delivery.id} class="delivery" data-delivery-id={delivery.id} data-status={delivery.status}>
            <div class="delivery-head">
              <span class="delivery-event">{delivery.event}</span>
              <StatusBadge status={delivery.status} />
              {deliveryNeedsRetry(delivery) && (
                <button
                  type="button"
                  class="retry"
                  data-retry={delivery.id}
                  disabled={retrying === delivery.id}
                  onClick={() => void retry(delivery.id)}
                >
                  {retrying === delivery.id ? 'Retrying…' : 'Retry now'}
                </button>
              )}
            </div>
            <p class="meta">
              {delivery.id} · event {delivery.eventId}
              {!aggregateId && (
                <>
                  {' · '}
                  {delivery.aggregateId.startsWith('ops_') ? (
                    <a href={hrefOf('sessions', delivery.aggregateId)}>{delivery.aggregateId}</a>
                  ) : (
                    delivery.aggregateId
                  )}
                </>
              )}
            </p>
            <p class="meta">
              {delivery.status === 'DELIVERED'
                ? `Delivered ${formatTime(delivery.deliveredAt)}`
                : delivery.nextAttemptAt
                  ? `Next attempt ${formatTime(delivery.nextAttemptAt)}`
                  : delivery.status === 'FAILED'
                    ? 'Retries spent: retry by hand once the endpoint is fixed.'
                    : delivery.status === 'HELD'
                      ? 'Held while the account is suspended: it goes out once, in order, when the operator resumes it.'
                      : 'Waiting for its first attempt.'}
            </p>
            {delivery.history.length > 0 && (
              <ol class="attempts">
                {delivery.history.map((attempt) => (
                  <li
                    key={attempt.number}
                    class={attempt.statusCode != null && attempt.statusCode < 300 ? 'ok' : 'bad'}
                  >
                    <span>#{attempt.number}</span> <span>{formatTime(attempt.startedAt)}</span>{' '}
                    <span class="attempt-result">
                      {attempt.statusCode != null ? `HTTP ${attempt.statusCode}` : (attempt.error ?? 'no answer')}
                    </span>{' '}
                    <span class="meta">{attempt.durationMs} ms</span>
                  </li>
                ))}
              </ol>
            )}
          </li>
        ))}
      </ul>
    </div>
  );
}
