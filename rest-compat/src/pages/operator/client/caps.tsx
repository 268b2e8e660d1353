import { useState } from 'preact/hooks';
import { ApiError, describeError } from '../../dashboard/client/api';
import { formatAmount, parseAmount, type CurrencyExponents } from '../../dashboard/client/format';
import { ErrorLine } from '../../dashboard/client/shared';
import { graphql } from './api';
import { Confirm } from './confirm';
import type { Position } from './operations';

const SET_CAP = `mutation OperatorSetNetDebitCap($bankHandle: String!, $currency: String!, $mode: String, $input: NetDebitCapInput!) {
  setNetDebitCap(bankHandle: $bankHandle, currency: $currency, mode: $mode, input: $input) { netDebitCap position belowPosition }
}`;
const REMOVE_CAP = `mutation OperatorRemoveNetDebitCap($bankHandle: String!, $currency: String!, $mode: String) {
  removeNetDebitCap(bankHandle: $bankHandle, currency: $currency, mode: $mode)
}`;

type Pending =
  | { kind: 'set'; currency: string; mode: 'live' | 'test'; cap: number; liquidityCover: boolean }
  | { kind: 'remove'; currency: string; mode: 'live' | 'test' };

/**
 * A bank's net debit caps (API-CONTRACT "Net debit caps and positions"): set one per currency and
 * world, in major units (parsed by the dashboard's parseAmount, shown by the one formatter), or
 * remove it; each behind a confirmation that says what changes for the bank's movements.
 */
export function CapControls({
  handle,
  positions,
  exponents,
  onChanged,
  onError,
}: {
  handle: string;
  positions: Position[];
  exponents: CurrencyExponents;
  onChanged: () => void;
  onError: (error: ApiError | null) => void;
}) {
  const currencies = Object.keys(exponents).sort();
  const [currency, setCurrency] = useState(currencies.includes('LYD') ? 'LYD' : (currencies[0] ?? 'LYD'));
  const [mode, setMode] = useState<'live' | 'test'>('live');
  const [amount, setAmount] = useState('');
  const [liquidityCover, setLiquidityCover] = useState(false);
  const [pending, setPending] = useState<Pending | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const money = (minor: number, code: string) => formatAmount(minor, code, exponents);
  const current = (code: string, world: 'live' | 'test') =>
    positions.find((p) => p.currency === code && p.livemode === (world === 'live'));

  const run = async (action: Pending) => {
    setBusy(true);
    setError(null);
    setNotice(null);
    setPending(null);
    try {
      if (action.kind === 'set') {
        const { setNetDebitCap } = await graphql<{ setNetDebitCap: { belowPosition: boolean } }>(SET_CAP, {
          bankHandle: handle,
          currency: action.currency,
          mode: action.mode,
          input: { netDebitCap: action.cap, liquidityCover: action.liquidityCover },
        });
        setNotice(
          `Cap set: ${money(action.cap, action.currency)} (${action.mode}).` +
            (setNetDebitCap.belowPosition
              ? ' It is below the current position: every new movement of the bank in this currency is refused until the position falls.'
              : ''),
        );
        setAmount('');
      } else {
        await graphql(REMOVE_CAP, { bankHandle: handle, currency: action.currency, mode: action.mode });
        setNotice(`Cap removed: ${action.currency} (${action.mode}) has no cap.`);
      }
      onChanged();
    } catch (caught) {
      const refused = describeError(caught);
      setError(refused);
      onError(refused);
    } finally {
      setBusy(false);
    }
  };

  const capped = positions.filter((p) => p.netDebitCap !== null);
  return (
    <div class="caps" id="caps">
      <form
        class="toolbar"
        id="cap-form"
        onSubmit={(event) => {
          event.preventDefault();
          const cap = parseAmount(amount, currency, exponents);
          if (cap === null) {
            setError(
              new ApiError(
                'VALIDATION_ERROR',
                `net_debit_cap: an amount in ${currency} above 0, with at most ${exponents[currency] ?? 2} decimals`,
              ),
            );
            return;
          }
          setError(null);
          setPending({ kind: 'set', currency, mode, cap, liquidityCover });
        }}
      >
        <div class="filter-field">
          <label for="cap-currency">Currency</label>
          <select
            id="cap-currency"
            value={currency}
            onChange={(e) => setCurrency((e.target as HTMLSelectElement).value)}
          >
            {currencies.map((code) => (
              <option key={code} value={code}>
                {code}
              </option>
            ))}
          </select>
        </div>
        <div class="filter-field">
          <label for="cap-mode">World</label>
          <select
            id="cap-mode"
            value={mode}
            onChange={(e) => setMode((e.target as HTMLSelectElement).value as 'live' | 'test')}
          >
            <option value="live">LIVE</option>
            <option value="test">TEST</option>
          </select>
        </div>
        <div class="filter-field">
          <label for="cap-amount">Net debit cap ({currency})</label>
          <input
            id="cap-amount"
            inputMode="decimal"
            placeholder="10,000.000"
            value={amount}
            onInput={(e) => setAmount((e.target as HTMLInputElement).value)}
          />
        </div>
        <label class="checkbox">
          <input
            type="checkbox"
            id="cap-cover"
            checked={liquidityCover}
            onChange={(e) => setLiquidityCover((e.target as HTMLInputElement).checked)}
          />{' '}
          Not above its settlement account
        </label>
        <button type="submit" id="cap-set" disabled={busy}>
          Set cap…
        </button>
      </form>
      {capped.length > 0 && (
        <div class="actions">
          {capped.map((p) => (
            <button
              key={`${p.currency}/${p.livemode}`}
              type="button"
              class="secondary remove-cap"
              data-currency={p.currency}
              data-livemode={String(p.livemode)}
              disabled={busy}
              onClick={() => setPending({ kind: 'remove', currency: p.currency, mode: p.livemode ? 'live' : 'test' })}
            >
              Remove {p.currency} {p.livemode ? 'LIVE' : 'TEST'} cap…
            </button>
          ))}
        </div>
      )}
      {notice && (
        <p class="notice" role="status" id="cap-notice">
          {notice}
        </p>
      )}
      <ErrorLine error={error} id="cap-error" />
      <Confirm
        open={pending !== null}
        idPrefix="cap-confirm"
        title={
          pending?.kind === 'set'
            ? `Cap ${handle} at ${money(pending.cap, pending.currency)} (${pending.mode})?`
            : `Remove ${handle}'s ${pending?.currency ?? ''} cap (${pending?.mode ?? ''})?`
        }
        action={pending?.kind === 'set' ? 'Set cap' : 'Remove cap'}
        busy={busy}
        onCancel={() => setPending(null)}
        onConfirm={() => pending && void run(pending)}
      >
        {pending?.kind === 'set' && (
          <>
            <p>
              From now on a cross-bank movement whose payer is at {handle} in {pending.currency} ({pending.mode}) is
              refused with 422 NET_DEBIT_CAP_EXCEEDED, before anything is debited, when the bank’s position plus its
              amount would pass {money(pending.cap, pending.currency)}.
            </p>
            <p class="meta">
              Its position now: {money(current(pending.currency, pending.mode)?.position ?? 0, pending.currency)}.
              {pending.liquidityCover
                ? ' The cap may not exceed its settlement account balance, read from its core now.'
                : ''}
            </p>
          </>
        )}
        {pending?.kind === 'remove' && (
          <p>No cap: the bank’s movements in {pending.currency} are never refused for its position.</p>
        )}
      </Confirm>
    </div>
  );
}
