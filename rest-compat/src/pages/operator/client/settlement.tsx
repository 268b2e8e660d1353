import { useEffect, useState } from 'preact/hooks';
import { describeError, type ApiError } from '../../dashboard/client/api';
import { formatAmount, formatTime, type CurrencyExponents } from '../../dashboard/client/format';
import { ErrorLine, StatusBadge, usePoll } from '../../dashboard/client/shared';
import { graphql } from './api';
import { Confirm } from './confirm';
import { pollWhile, useLive } from './live';
import { CYCLES, CYCLES_LIVE, RETRY_POSITION, type CyclePosition, type CycleRow } from './operations';

/** A position the engine has not settled: an operator may send it again now (with the same core reference). */
const retryable = (position: CyclePosition) => position.status === 'FAILED' || position.status === 'PENDING';

/** The latest settlement cycles with their positions (amounts through the one formatter); an unsettled position can be retried. */
export function SettlementView({
  exponents,
  onError,
}: {
  exponents: CurrencyExponents;
  onError: (error: ApiError | null) => void;
}) {
  // Live while the console's socket is; the poll is the fallback (slow while live).
  const live = useLive<{ settlementCyclesUpdated: { edges: Array<{ node: CycleRow }> } }>(CYCLES_LIVE, {}, true, []);
  const polled = usePoll(
    async () =>
      (await graphql<{ settlementCycles: { edges: Array<{ node: CycleRow }> } }>(CYCLES)).settlementCycles.edges,
    pollWhile(live.live, 10_000),
    [],
  );
  const { error, refresh } = polled;
  const data = (live.live ? live.data?.settlementCyclesUpdated.edges : null) ?? polled.data;
  useEffect(() => onError(error), [error]);
  const [retrying, setRetrying] = useState<{ cycleId: string; position: CyclePosition } | null>(null);
  const [busy, setBusy] = useState(false);
  const [actionError, setActionError] = useState<ApiError | null>(null);

  const retry = async (cycleId: string, position: CyclePosition) => {
    setBusy(true);
    setActionError(null);
    setRetrying(null);
    try {
      await graphql(RETRY_POSITION, { cycleId, bankHandle: position.bankHandle, currency: position.currency });
      await refresh();
    } catch (caught) {
      const refused = describeError(caught);
      setActionError(refused);
      onError(refused);
    } finally {
      setBusy(false);
    }
  };

  const money = (position: CyclePosition) => formatAmount(Math.abs(position.netAmount), position.currency, exponents);
  return (
    <section class="card">
      <h1>
        Settlement cycles{' '}
        <span class="meta" id="cycles-live" data-live={String(live.live)}>
          {live.live ? 'live' : 'refreshed every 10 s'}
        </span>
      </h1>
      <ErrorLine error={error ?? actionError} id="cycles-error" />
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
                  <li key={`${p.bankHandle}/${p.currency}`} data-bank={p.bankHandle} data-status={p.status}>
                    <span class="position-line">
                      {p.bankHandle}: {p.direction} {money(p)}
                    </span>{' '}
                    <StatusBadge status={p.status} />
                    {retryable(p) && (
                      <>
                        {' '}
                        <span class="meta">
                          {p.attempts} attempt{p.attempts === 1 ? '' : 's'}
                          {p.lastError ? ` · ${p.lastError}` : ''}
                        </span>{' '}
                        <button
                          type="button"
                          class="secondary retry-position"
                          disabled={busy}
                          onClick={() => setRetrying({ cycleId: cycle.id, position: p })}
                        >
                          Retry…
                        </button>
                      </>
                    )}
                  </li>
                ))}
              </ul>
            )}
          </li>
        ))}
      </ul>
      <Confirm
        open={retrying !== null}
        idPrefix="retry-confirm"
        title={`Retry ${retrying?.position.bankHandle ?? ''}'s ${retrying?.position.currency ?? ''} position now?`}
        action="Retry now"
        danger={false}
        busy={busy}
        onCancel={() => setRetrying(null)}
        onConfirm={() => retrying && void retry(retrying.cycleId, retrying.position)}
      >
        {retrying && (
          <p>
            The {retrying.position.direction} of {money(retrying.position)} is sent to {retrying.position.bankHandle}’s
            core again now, with the same core reference ({retrying.position.coreReference}), so the core books it once.
            The retry is audited.
          </p>
        )}
      </Confirm>
    </section>
  );
}
