import { useState } from 'preact/hooks';
import { describeError, graphql, type ApiError } from './api';
import { applyFilter, FilterBar } from './filter-bar';
import type { ListFilter } from './filters';
import { formatTime } from './format';
import { REFUND, REFUNDS, type Connection, type RefundListRow, filterVariables, hasFilter } from './operations';
import { Amount, ErrorLine, hrefOf, StatusBadge, useDashboard, usePoll } from './shared';

const PAGE_SIZE = 20;
const REFUNDS_POLL_MS = 5_000;
export const REFUND_STATUSES = ['PROCESSING', 'COMPLETED', 'FAILED'] as const;

/**
 * The merchant's refunds across its sessions (`refunds`), newest first, under a filter (status,
 * created range, reference, one metadata key=value); a search by rfd_ id shows that refund alone.
 * Each links to its session, where refunds are made.
 */
export function RefundList() {
  const { merchant } = useDashboard();
  const [filter, setFilter] = useState<ListFilter>({});
  const [only, setOnly] = useState<string | null>(null);
  const [filterError, setFilterError] = useState<ApiError | null>(null);
  const [older, setOlder] = useState<RefundListRow[]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const key = JSON.stringify({ filter, only });
  const { data, error } = usePoll(
    async (): Promise<Connection<RefundListRow>> => {
      if (only) {
        const { refund } = await graphql<{ refund: RefundListRow }>(REFUND, { id: only });
        return { edges: [{ node: refund }], pageInfo: { hasNextPage: false, endCursor: null } };
      }
      return (
        await graphql<{ refunds: Connection<RefundListRow> }>(REFUNDS(hasFilter(filter)), {
          first: PAGE_SIZE,
          ...filterVariables(filter),
        })
      ).refunds;
    },
    REFUNDS_POLL_MS,
    [merchant.id, key],
  );
  const first = data?.edges.map((edge) => edge.node) ?? [];
  const shown = [...first, ...older.filter((refund) => !first.some((row) => row.id === refund.id))];
  const next = cursor === undefined ? data?.pageInfo.endCursor : cursor;
  const hasMore = cursor === undefined ? data?.pageInfo.hasNextPage : cursor !== null;
  const loadMore = async () => {
    if (!next) return;
    try {
      const answer = (
        await graphql<{ refunds: Connection<RefundListRow> }>(REFUNDS(hasFilter(filter)), {
          first: PAGE_SIZE,
          after: next,
          ...filterVariables(filter),
        })
      ).refunds;
      setOlder((current) => [...current, ...answer.edges.map((edge) => edge.node)]);
      setCursor(answer.pageInfo.hasNextPage ? answer.pageInfo.endCursor : null);
    } catch (caught) {
      setFilterError(describeError(caught));
    }
  };
  const reset = () => {
    setOlder([]);
    setCursor(undefined);
  };

  return (
    <section class="card">
      <h1>Refunds</h1>
      <FilterBar
        id="refunds"
        statuses={REFUND_STATUSES}
        searchLabel="Search"
        searchPlaceholder="rfd_… id or reference"
        metadata
        onApply={(form) => {
          reset();
          applyFilter(
            form,
            { idPrefix: 'rfd_', searchField: 'reference', metadata: true },
            (id) => setOnly(id),
            (next) => {
              setOnly(null);
              setFilter(next);
            },
            setFilterError,
          );
        }}
      />
      <ErrorLine error={filterError ?? error} id="refunds-error" />
      {data && shown.length === 0 && (
        <p class="meta" id="refunds-none">
          {key === JSON.stringify({ filter: {}, only: null })
            ? 'No refunds yet. Refund a paid session from its page.'
            : 'No refund matches these filters.'}
        </p>
      )}
      <ul class="rows" id="refund-rows">
        {shown.map((refund) => (
          <li key={refund.id} class="row" data-refund-id={refund.id}>
            <a href={hrefOf('sessions', refund.sessionId)} class="row-link">
              <span class="row-main">
                <Amount amount={refund.amount} currency={refund.currency} />
                <span class="row-sub">{refund.reference ?? refund.reason ?? refund.sessionId}</span>
              </span>
              <span class="row-id">{refund.id}</span>
              <span class="row-time">{formatTime(refund.createdAt)}</span>
              <span class="row-status" data-status={refund.status}>
                <StatusBadge status={refund.status} />
              </span>
            </a>
          </li>
        ))}
      </ul>
      {hasMore && (
        <button type="button" class="secondary" id="refunds-more" onClick={() => void loadMore()}>
          Older refunds
        </button>
      )}
    </section>
  );
}
