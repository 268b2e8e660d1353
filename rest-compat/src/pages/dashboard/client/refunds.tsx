import { useState } from 'preact/hooks';
import { ApiError, describeError, graphql } from './api';
import { formatAmount, formatTime, parseAmount } from './format';
import { REFUND_SESSION, SESSION_REFUNDS, type RefundRow, type SessionRefunds } from './operations';
import { ErrorLine, StatusBadge, useDashboard, usePoll } from './shared';

/** While a refund moves (cross bank: until the payer's bank confirms), its status is asked again this often. */
const REFUND_POLL_MS = 2_000;
/** The API's largest page: a session refunded more often than this shows its newest refunds (the total is the API's). */
const MAX_REFUNDS_SHOWN = 100;

export interface Refunds {
  refunds: RefundRow[];
  amountRefunded: number;
  error: ApiError | null;
  refresh: () => Promise<void>;
}

/** A paid session's refunds, read once it is COMPLETED and again while one of them is still PROCESSING. */
export function useRefunds(sessionId: string, paid: boolean): Refunds {
  const [moving, setMoving] = useState(false);
  const { data, error, refresh } = usePoll<SessionRefunds | null>(
    async () => {
      if (!paid) return null;
      const { paymentSession } = await graphql<{ paymentSession: SessionRefunds }>(SESSION_REFUNDS, {
        id: sessionId,
        first: MAX_REFUNDS_SHOWN,
      });
      setMoving(paymentSession.refunds.edges.some((edge) => edge.node.status === 'PROCESSING'));
      return paymentSession;
    },
    // Nothing moving: no need to ask again (a new refund refreshes by itself).
    moving ? REFUND_POLL_MS : 3_600_000,
    [sessionId, paid],
  );
  return {
    refunds: data?.refunds.edges.map((edge) => edge.node) ?? [],
    amountRefunded: data?.amountRefunded ?? 0,
    error,
    refresh,
  };
}

/**
 * Refunds of a paid session: what was given back, each refund with its status, and a form for
 * another (an amount, all that is left when empty, and a reason). The API decides: a refusal
 * (REFUND_AMOUNT_EXCEEDED, a merchant without settlement account, …) is shown as it answered.
 */
export function RefundPanel({
  session,
  refunds,
}: {
  session: { id: string; amount: number; currency: string };
  refunds: Refunds;
}) {
  const { exponents } = useDashboard();
  const [amount, setAmount] = useState('');
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<ApiError | null>(null);
  const left = session.amount - refunds.amountRefunded;
  const money = (minor: number) => formatAmount(minor, session.currency, exponents);

  const submit = async () => {
    const minor = amount.trim() ? parseAmount(amount, session.currency, exponents) : null;
    if (amount.trim() && minor === null) {
      setRefusal(new ApiError('VALIDATION_ERROR', `Not an amount of ${session.currency}: ${amount.trim()}`));
      return;
    }
    setBusy(true);
    setRefusal(null);
    try {
      await graphql(REFUND_SESSION, {
        id: session.id,
        input: { ...(minor !== null ? { amount: minor } : {}), ...(reason.trim() ? { reason: reason.trim() } : {}) },
      });
      setAmount('');
      setReason('');
    } catch (caught) {
      setRefusal(describeError(caught));
    } finally {
      setBusy(false);
      await refunds.refresh();
    }
  };

  return (
    <div id="refunds">
      <p class="meta" id="refunded">
        Refunded {money(refunds.amountRefunded)} of {money(session.amount)}
      </p>
      <ErrorLine error={refunds.error} id="refunds-error" />
      {refunds.refunds.length > 0 && (
        <ul class="rows" id="refund-list">
          {refunds.refunds.map((refund) => (
            <li key={refund.id} class="row static" data-refund-id={refund.id} data-status={refund.status}>
              <span class="row-main">
                <span class="amount">{money(refund.amount)}</span>
                <span class="row-sub">{refund.reason ?? 'No reason given'}</span>
              </span>
              <span class="row-id">{refund.failureCode ?? refund.id}</span>
              <span class="row-time">{formatTime(refund.createdAt)}</span>
              <span class="row-status">
                <StatusBadge status={refund.status} />
              </span>
            </li>
          ))}
        </ul>
      )}
      {left > 0 && (
        <form
          id="refund-form"
          onSubmit={(event) => {
            event.preventDefault();
            void submit();
          }}
        >
          <label for="refund-amount">Amount to refund ({session.currency})</label>
          <input
            id="refund-amount"
            inputMode="decimal"
            autocomplete="off"
            placeholder={`All that is left: ${money(left)}`}
            value={amount}
            onInput={(event) => setAmount((event.target as HTMLInputElement).value)}
          />
          <label for="refund-reason">Reason</label>
          <input
            id="refund-reason"
            maxLength={500}
            placeholder="Returned, cancelled order, …"
            value={reason}
            onInput={(event) => setReason((event.target as HTMLInputElement).value)}
          />
          <div class="actions">
            <button type="submit" class="danger" id="refund-button" disabled={busy}>
              {busy ? 'Refunding…' : 'Refund'}
            </button>
          </div>
        </form>
      )}
      <ErrorLine error={refusal} id="refund-error" />
    </div>
  );
}
