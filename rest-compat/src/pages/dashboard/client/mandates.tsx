import { useState } from 'preact/hooks';
import { describeError, graphql, type ApiError } from './api';
import { applyFilter, FilterBar } from './filter-bar';
import type { ListFilter } from './filters';
import { formatTime } from './format';
import {
  MANDATE,
  MANDATES,
  type Connection,
  type MandateCharge,
  type MandateRow,
  filterVariables,
  hasFilter,
} from './operations';
import { Amount, ErrorLine, Field, hrefOf, StatusBadge, useDashboard, usePoll } from './shared';

const PAGE_SIZE = 20;
const MANDATE_POLL_MS = 5_000;
export const MANDATE_STATUSES = ['PENDING_CONFIRMATION', 'ACTIVE', 'CANCELLED', 'FAILED'] as const;

/**
 * The merchant's mandates, newest first, under a filter (status, created range, one metadata
 * key=value; a search by mdt_ id opens that mandate): first page refreshed, older pages on demand.
 */
export function MandateList() {
  const { merchant } = useDashboard();
  const [filter, setFilter] = useState<ListFilter>({});
  const [filterError, setFilterError] = useState<ApiError | null>(null);
  const filterKey = JSON.stringify(filter);
  const [older, setOlder] = useState<MandateRow[]>([]);
  const [cursor, setCursor] = useState<{ hasNextPage: boolean; endCursor: string | null } | null>(null);
  const [moreError, setMoreError] = useState<ApiError | null>(null);
  const page = (after: string | null) =>
    graphql<{ mandates: Connection<MandateRow> }>(MANDATES(hasFilter(filter)), {
      first: PAGE_SIZE,
      after,
      ...filterVariables(filter),
    }).then((answer) => answer.mandates);
  const { data, error } = usePoll(() => page(null), MANDATE_POLL_MS, [merchant.id, filterKey]);
  const first = data?.edges.map((edge) => edge.node) ?? [];
  const shown = [...first, ...older.filter((mandate) => !first.some((row) => row.id === mandate.id))];
  const paging = cursor ?? data?.pageInfo ?? null;

  const loadMore = async () => {
    if (!paging?.endCursor) return;
    try {
      const next = await page(paging.endCursor);
      setOlder((current) => [...current, ...next.edges.map((edge) => edge.node)]);
      setCursor(next.pageInfo);
    } catch (caught) {
      setMoreError(describeError(caught));
    }
  };

  return (
    <section class="card">
      <h1>Mandates</h1>
      <FilterBar
        id="mandates"
        statuses={MANDATE_STATUSES}
        searchLabel="Search"
        searchPlaceholder="mdt_… id"
        metadata
        onApply={(form) => {
          // Another filter: another list, not the old one's older pages.
          setOlder([]);
          setCursor(null);
          applyFilter(
            form,
            { idPrefix: 'mdt_', metadata: true },
            (id) => (location.hash = hrefOf('mandates', id)),
            setFilter,
            setFilterError,
          );
        }}
      />
      <ErrorLine error={filterError ?? error ?? moreError} id="mandates-error" />
      {data && shown.length === 0 && (
        <p class="meta" id="mandates-none">
          {filterKey === '{}'
            ? 'No mandates yet. Create one with POST /recurring/mandates (or createMandate).'
            : 'No mandate matches these filters.'}
        </p>
      )}
      <ul class="rows" id="mandates">
        {shown.map((mandate) => (
          <li key={mandate.id} class="row" data-mandate-id={mandate.id}>
            <a href={hrefOf('mandates', mandate.id)} class="row-link">
              <span class="row-main">
                <Amount amount={mandate.amount} currency={mandate.currency} />
                <span class="row-sub">
                  {mandate.interval.toLowerCase()} · {mandate.customerAlias}
                </span>
              </span>
              <span class="row-id">{mandate.id}</span>
              <span class="row-time">{formatTime(mandate.createdAt)}</span>
              <span class="row-status" data-status={mandate.status}>
                <StatusBadge status={mandate.status} />
              </span>
            </a>
          </li>
        ))}
      </ul>
      {paging?.hasNextPage && (
        <button type="button" class="secondary" id="mandates-more" onClick={() => void loadMore()}>
          Older mandates
        </button>
      )}
    </section>
  );
}

type MandateWithCharges = MandateRow & { charges: Connection<MandateCharge> };

/** One mandate and its charges, newest first. */
export function MandateDetail({ id }: { id: string }) {
  const { merchant } = useDashboard();
  const { data: mandate, error } = usePoll(
    () => graphql<{ mandate: MandateWithCharges }>(MANDATE, { id, first: 50 }).then((answer) => answer.mandate),
    MANDATE_POLL_MS,
    [merchant.id, id],
  );

  return (
    <section class="card" id="mandate-detail">
      <p class="back">
        <a href={hrefOf('mandates')}>← All mandates</a>
      </p>
      {error && !mandate && (
        <h1>{error.code === 'MANDATE_NOT_FOUND' ? 'Mandate not found' : 'Mandate could not be loaded'}</h1>
      )}
      <ErrorLine error={error} id="mandate-error" />
      {mandate && (
        <>
          <div class="section-head">
            <h1>
              Up to <Amount amount={mandate.amount} currency={mandate.currency} /> {mandate.interval.toLowerCase()}
            </h1>
            <span id="mandate-status" data-status={mandate.status}>
              <StatusBadge status={mandate.status} />
            </span>
          </div>
          <dl class="fields">
            <Field label="Mandate">{mandate.id}</Field>
            <Field label="Customer">{mandate.customerAlias}</Field>
            <Field label="Description">{mandate.description ?? '—'}</Field>
            <Field label="Start date">{mandate.startDate}</Field>
            <Field label="Next charge from">{mandate.nextChargeDate ?? '—'}</Field>
            <Field label="Confirmed">{formatTime(mandate.confirmedAt)}</Field>
            {mandate.cancelledAt && (
              <Field label="Cancelled">{`${formatTime(mandate.cancelledAt)}${mandate.revokedBy ? ` by ${mandate.revokedBy}` : ''}`}</Field>
            )}
          </dl>
          <h2>Charges</h2>
          {mandate.charges.edges.length === 0 && <p class="meta">No charges yet.</p>}
          <ul class="rows" id="charges">
            {mandate.charges.edges.map(({ node: charge }) => (
              <li key={charge.id} class="row static" data-charge-id={charge.id}>
                <span class="row-main">
                  <Amount amount={charge.amount} currency={charge.currency} />
                  <span class="row-sub">
                    {charge.reference} · period from {charge.periodStart}
                  </span>
                </span>
                <span class="row-id">{charge.id}</span>
                <span class="row-time">{formatTime(charge.completedAt ?? charge.failedAt ?? charge.createdAt)}</span>
                <span class="row-status" data-status={charge.status}>
                  <StatusBadge status={charge.status} />
                  {charge.failureCode && <span class="meta"> {charge.failureCode}</span>}
                </span>
              </li>
            ))}
          </ul>
        </>
      )}
    </section>
  );
}
