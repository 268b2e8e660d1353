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
 * another (an amount, all that is left when empty, and a reason). Money moves only once the
 * merchant confirms the amount in words ("Refund 12.500 LYD to the payer?"), as a second step.
 * The API decides: a refusal (REFUND_AMOUNT_EXCEEDED, a merchant without settlement account, …)
 * is shown as it answered.
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
  /** The refund asked for, awaiting the merchant's confirmation: its amount (null: all that is left). */
  const [confirming, setConfirming] = useState<{ minor: number | null } | null>(null);
  const left = session.amount - refunds.amountRefunded;
  const money = (minor: number) => formatAmount(minor, session.currency, exponents);

  /** The first step: the amount is read and put to the merchant; nothing is sent yet. */
  const ask = () => {
    const minor = amount.trim() ? parseAmount(amount, session.currency, exponents) : null;
    if (amount.trim() && minor === null) {
      setRefusal(new ApiError('VALIDATION_ERROR', `Not an amount of ${session.currency}: ${amount.trim()}`));
      return;
    }
    setRefusal(null);
    setConfirming({ minor });
  };

  const submit = async (minor: number | null) => {
    setConfirming(null);
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
            ask();
          }}
        >
          <label for="refund-amount">Amount to refund ({session.currency})</label>
          <input
            id="refund-amount"
            inputMode="decimal"
            autocomplete="off"
            placeholder={`All that is left: ${money(left)}`}
            value={amount}
            onInput={(event) => {
              setAmount((event.target as HTMLInputElement).value);
              // A changed amount is another question: it is asked again.
              setConfirming(null);
            }}
          />
          <label for="refund-reason">Reason</label>
          <input
            id="refund-reason"
            maxLength={500}
            placeholder="Returned, cancelled order, …"
            value={reason}
            onInput={(event) => setReason((event.target as HTMLInputElement).value)}
          />
          {confirming ? (
            <div class="confirm" id="refund-confirmation" role="alertdialog" aria-labelledby="refund-question">
              <p id="refund-question">Refund {money(confirming.minor ?? left)} to the payer?</p>
              <div class="actions">
                <button type="button" class="danger" id="refund-confirm" onClick={() => void submit(confirming.minor)}>
                  Confirm
                </button>
                <button type="button" class="secondary" id="refund-cancel" onClick={() => setConfirming(null)}>
                  Cancel
                </button>
              </div>
            </div>
          ) : (
            <div class="actions">
              <button type="submit" class="danger" id="refund-button" disabled={busy}>
                {busy ? 'Refunding…' : 'Refund'}
              </button>
            </div>
          )}
        </form>
      )}
      <ErrorLine error={refusal} id="refund-error" />
    </div>
  );
}
