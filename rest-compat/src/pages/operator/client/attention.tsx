import { useEffect, useState } from 'preact/hooks';
import { describeError, type ApiError } from '../../dashboard/client/api';
import { formatAmount, formatTime, type CurrencyExponents } from '../../dashboard/client/format';
import { ErrorLine, Field, StatusBadge, usePoll } from '../../dashboard/client/shared';
import { graphql } from './api';
import { Confirm } from './confirm';
import { ATTENTION, RESOLVE_MOVEMENT, type AttentionItem } from './operations';

type Resolution = 'RETRY' | 'REFUND_PAYER' | 'CLOSE' | 'CREDITED' | 'NOT_CREDITED';

/** Each resolution the API offers, with what the engine will do (the schema's words, MovementResolution). */
const RESOLUTIONS: Record<Resolution, { label: string; effect: string }> = {
  RETRY: {
    label: 'Retry',
    effect: 'The engine takes the step up again: replays and the core statement, with a fresh deadline.',
  },
  REFUND_PAYER: {
    label: 'Refund the payer',
    effect: 'The payer’s money was taken and not delivered: the engine reverses the debit, once, by its own reference.',
  },
  CLOSE: { label: 'Close', effect: 'Settled outside the gateway: nothing more is done.' },
  CREDITED: {
    label: 'Payer was credited',
    effect: 'The held refund is COMPLETED (refund.completed) and its amount stays refunded.',
  },
  NOT_CREDITED: {
    label: 'Payer was not credited',
    effect:
      'The held refund FAILS for good with CBS_ERROR (refund.failed), its amount is free to refund again at once, and the engine gives the merchant’s debit back (once) if it was taken.',
  },
};

/** What may be decided about a movement: a refund held at CBS_OUTCOME_UNKNOWN is settled by a finding. */
const resolutionsFor = (item: AttentionItem): Resolution[] =>
  item.kind === 'refund' ? ['CREDITED', 'NOT_CREDITED', 'RETRY', 'CLOSE'] : ['RETRY', 'REFUND_PAYER', 'CLOSE'];

/** Movements that need a person, oldest first, with the engine's evidence and the resolutions the API offers. */
export function AttentionView({
  exponents,
  onError,
}: {
  exponents: CurrencyExponents;
  onError: (error: ApiError | null) => void;
}) {
  const { data, error, refresh } = usePoll(
    async () =>
      (await graphql<{ movementsNeedingAttention: { edges: Array<{ node: AttentionItem }> } }>(ATTENTION))
        .movementsNeedingAttention.edges,
    10_000,
    [],
  );
  useEffect(() => onError(error), [error]);
  const [resolved, setResolved] = useState<AttentionItem | null>(null);
  return (
    <section class="card">
      <h1>Needs attention</h1>
      <ErrorLine error={error} id="attention-error" />
      {resolved && (
        <p class="notice" role="status" id="attention-resolved">
          {resolved.sessionId}: {resolved.resolution} (the engine goes on with {resolved.step}).
        </p>
      )}
      {data && data.length === 0 && <p class="meta">Nothing needs a person.</p>}
      <ul class="rows" id="attention">
        {data?.map(({ node }) => (
          <AttentionRow
            key={node.sessionId}
            item={node}
            exponents={exponents}
            onResolved={(item) => {
              setResolved(item);
              void refresh();
            }}
            onError={onError}
          />
        ))}
      </ul>
    </section>
  );
}

function AttentionRow({
  item,
  exponents,
  onResolved,
  onError,
}: {
  item: AttentionItem;
  exponents: CurrencyExponents;
  onResolved: (item: AttentionItem) => void;
  onError: (error: ApiError | null) => void;
}) {
  const offered = resolutionsFor(item);
  const [action, setAction] = useState<Resolution>(offered[0]!);
  const [note, setNote] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  const resolve = async () => {
    setBusy(true);
    setError(null);
    setConfirming(false);
    try {
      const { resolveMovement } = await graphql<{ resolveMovement: AttentionItem }>(RESOLVE_MOVEMENT, {
        id: item.sessionId,
        action,
        note: note.trim(),
      });
      onResolved(resolveMovement);
    } catch (caught) {
      const refused = describeError(caught);
      setError(refused);
      onError(refused);
    } finally {
      setBusy(false);
    }
  };

  const amount = formatAmount(item.amount, item.currency, exponents);
  return (
    <li class="attention-item" data-id={item.sessionId}>
      <div class="row-main">
        <strong>{item.sessionId}</strong> <span class="meta">{item.kind}</span>{' '}
        <StatusBadge status={item.sessionStatus} /> <span class="amount">{amount}</span>
      </div>
      <p class="attention-reason">{item.reason}</p>
      <dl class="fields">
        <Field label="Stopped at step">{item.step}</Field>
        <Field label="Since">{formatTime(item.since)}</Field>
        <Field label="Failure code">{item.failureCode ?? '—'}</Field>
        <Field label="Last core answer">{item.lastError ?? '—'}</Field>
        <Field label="Payer">
          {item.debtorIban} {item.debtorBank ? `(${item.debtorBank})` : ''}
        </Field>
        <Field label="Payee">
          {item.creditorIban} ({item.creditorBank})
        </Field>
        <Field label="Debit booked">{formatTime(item.debitBookedAt)}</Field>
        <Field label="Credit booked">{formatTime(item.creditBookedAt)}</Field>
        <Field label="Reversal booked">{formatTime(item.reversalBookedAt)}</Field>
      </dl>
      <form
        class="toolbar resolve-form"
        onSubmit={(event) => {
          event.preventDefault();
          setConfirming(true);
        }}
      >
        <div class="filter-field">
          <label for={`resolution-${item.sessionId}`}>Resolution</label>
          <select
            id={`resolution-${item.sessionId}`}
            class="resolution"
            value={action}
            onChange={(event) => setAction((event.target as HTMLSelectElement).value as Resolution)}
          >
            {offered.map((name) => (
              <option key={name} value={name}>
                {RESOLUTIONS[name].label}
              </option>
            ))}
          </select>
        </div>
        <div class="filter-field">
          <label for={`note-${item.sessionId}`}>What was checked at the bank(s)</label>
          <input
            id={`note-${item.sessionId}`}
            class="resolution-note"
            value={note}
            onInput={(event) => setNote((event.target as HTMLInputElement).value)}
          />
        </div>
        <button type="submit" class="resolve" disabled={busy}>
          Resolve…
        </button>
      </form>
      <ErrorLine error={error} />
      <Confirm
        open={confirming}
        idPrefix="resolve-confirm"
        title={`${RESOLUTIONS[action].label}: ${item.sessionId} (${amount})?`}
        action={RESOLUTIONS[action].label}
        busy={busy}
        onCancel={() => setConfirming(false)}
        onConfirm={() => void resolve()}
      >
        <p>{RESOLUTIONS[action].effect}</p>
        <p class="meta">Recorded in the audit log with the note: {note.trim() || '(none: the API asks for one)'}</p>
      </Confirm>
    </li>
  );
}
