import { useEffect } from 'preact/hooks';
import type { ApiError } from '../../dashboard/client/api';
import { formatAmount, formatTime, type CurrencyExponents } from '../../dashboard/client/format';
import { ErrorLine, StatusBadge, usePoll } from '../../dashboard/client/shared';
import { graphql } from './api';
import { CYCLES, type CycleRow } from './operations';

/** The latest settlement cycles with their positions (amounts through the one formatter). */
export function SettlementView({
  exponents,
  onError,
}: {
  exponents: CurrencyExponents;
  onError: (error: ApiError | null) => void;
}) {
  const { data, error } = usePoll(
    async () =>
      (await graphql<{ settlementCycles: { edges: Array<{ node: CycleRow }> } }>(CYCLES)).settlementCycles.edges,
    10_000,
    [],
  );
  useEffect(() => onError(error), [error]);
  return (
    <section class="card">
      <h1>Settlement cycles</h1>
      <ErrorLine error={error} id="cycles-error" />
      {data && data.length === 0 && <p class="meta">No settlement cycle has run yet.</p>}
      <ul class="rows" id="cycles">
        {data?.map(({ node: cycle }) => (
          <li key={cycle.id} data-id={cycle.id} class="cycle">
            <div class="row-main">
              <strong>{cycle.id}</strong> <StatusBadge status={cycle.status} />{' '}
              <span class="meta">
                {cycle.livemode ? 'LIVE' : 'TEST'} · {cycle.obligationCount} obligations · {cycle.trigger} · opened{' '}
                {formatTime(cycle.openedAt)}
                {cycle.settledAt ? ` · settled ${formatTime(cycle.settledAt)}` : ''}
              </span>
            </div>
            {cycle.positions.length > 0 && (
              <ul class="cycle-positions">
                {cycle.positions.map((p) => (
                  <li key={`${p.bankHandle}/${p.currency}`}>
                    {p.bankHandle}: {p.direction} {formatAmount(Math.abs(p.netAmount), p.currency, exponents)}{' '}
                    <StatusBadge status={p.status} />
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
    </section>
  );
}
