import { useEffect, useState } from 'preact/hooks';
import { ApiError, describeError } from '../../dashboard/client/api';
import { formatAmount, formatTime, type CurrencyExponents } from '../../dashboard/client/format';
import { ErrorLine, Field, StatusBadge, hrefOf, usePoll } from '../../dashboard/client/shared';
import { graphql } from './api';
import { AuditEntries } from './audit';
import { CapControls } from './caps';
import { Confirm } from './confirm';
import { ImpactLine, suspensionImpact, useImpact } from './impact';
import { ParticipantKeys } from './keys';
import { pollWhile, useLive } from './live';
import {
  AUDIT_LOG,
  BANK,
  BANK_POSITIONS_LIVE,
  MERCHANT,
  SUSPENSION,
  TPP,
  type AuditPage,
  type BankRecord,
  type MerchantRecord,
  type ParticipantKind,
  type Position,
  type TppRecord,
} from './operations';

type Loaded =
  | { kind: 'merchant'; record: MerchantRecord }
  | { kind: 'bank'; record: BankRecord }
  | { kind: 'tpp'; record: TppRecord };

async function load(kind: string, id: string): Promise<Loaded> {
  if (kind === 'merchant')
    return { kind, record: (await graphql<{ merchant: MerchantRecord }>(MERCHANT, { id })).merchant };
  if (kind === 'bank') return { kind, record: (await graphql<{ bank: BankRecord }>(BANK, { handle: id })).bank };
  if (kind === 'tpp') return { kind, record: (await graphql<{ tpp: TppRecord }>(TPP, { id })).tpp };
  throw new ApiError('NOT_FOUND', `There is no participant kind ${kind}.`);
}

/** What a suspension does, in the contract's words (API-CONTRACT "Operator controls"), shown before it is confirmed. */
const EFFECT: Record<ParticipantKind, { suspend: string; resume: string }> = {
  merchant: {
    suspend:
      'Its API keys and dashboard sessions will answer 403 MERCHANT_SUSPENDED at once, its open sessions can no longer be paid and it can start no new work. Payments already authorized finish.',
    resume: 'Its keys, dashboard sessions and open sessions will work again.',
  },
  bank: {
    suspend:
      'It will take part in no new session, consent, payment order, mandate or charge (422 BANK_NOT_PARTICIPATING) and its bank key will answer 403 BANK_SUSPENDED. Movements in flight finish and settlement still pays its positions.',
    resume: 'Its bank key will work again and it will take new work.',
  },
  tpp: {
    suspend:
      'Its token and every code and token of its consents will answer 403 TPP_SUSPENDED at once, and its open subscriptions close. Nothing is revoked: they work again on resume.',
    resume: 'Its token and its consents’ tokens will work again.',
  },
};

export function ParticipantView({
  kind,
  id,
  exponents,
  onError,
}: {
  kind: string;
  id: string;
  exponents: CurrencyExponents;
  onError: (error: ApiError | null) => void;
}) {
  // A bank's positions are live; the record is polled, slowly while they are (a fallback only).
  const live = useLive<{ bankPositionsUpdated: Position[] }>(BANK_POSITIONS_LIVE, { handle: id }, kind === 'bank', [
    kind,
    id,
  ]);
  const { data, error, refresh } = usePoll(() => load(kind, id), pollWhile(live.live, 10_000), [kind, id]);
  useEffect(() => onError(error), [error]);
  const positions =
    data?.kind === 'bank' ? ((live.live ? live.data?.bankPositionsUpdated : null) ?? data.record.positions ?? []) : [];
  return (
    <section class="card">
      <p>
        <a href={hrefOf('participants')} id="back-to-participants">
          ← Participants
        </a>
      </p>
      <ErrorLine error={error} id="participant-error" />
      {data && (
        <>
          <h1 id="participant-name">
            {data.kind === 'bank' ? data.record.displayName : data.record.name}{' '}
            <span id="participant-status">
              <StatusBadge status={data.record.status} />
            </span>
          </h1>
          <Record loaded={data} />
          {data.kind !== 'tpp' || data.record.status !== 'DISABLED' ? (
            <Containment kind={data.kind} id={id} status={data.record.status} onDone={refresh} onError={onError} />
          ) : null}
          <ParticipantKeys kind={data.kind} id={id} onDone={() => void refresh()} onError={onError} />
          {data.kind === 'bank' && (
            <>
              <Positions positions={positions} exponents={exponents} live={live.live} />
              <CapControls
                handle={id}
                positions={positions}
                exponents={exponents}
                onChanged={() => void refresh()}
                onError={onError}
              />
            </>
          )}
          <RecentAudit target={id} />
        </>
      )}
    </section>
  );
}

function Record({ loaded }: { loaded: Loaded }) {
  if (loaded.kind === 'merchant') {
    const m = loaded.record;
    return (
      <dl class="fields">
        <Field label="Kind">merchant</Field>
        <Field label="Id">{m.id}</Field>
        <Field label="Mode">{m.mode.toUpperCase()}</Field>
        <Field label="Settlement IBAN">{m.settlementIban ?? '—'}</Field>
        <Field label="Webhook URL">{m.webhookUrl ?? '—'}</Field>
        <Field label="Created">{formatTime(m.createdAt)}</Field>
      </dl>
    );
  }
  if (loaded.kind === 'bank') {
    const b = loaded.record;
    return (
      <dl class="fields">
        <Field label="Kind">bank</Field>
        <Field label="Handle">{b.handle}</Field>
        <Field label="Institution code">{b.institutionCode}</Field>
        <Field label="Country">{b.country}</Field>
        <Field label="Registered">{formatTime(b.createdAt)}</Field>
      </dl>
    );
  }
  const t = loaded.record;
  return (
    <dl class="fields">
      <Field label="Kind">TPP</Field>
      <Field label="Id">{t.id}</Field>
      <Field label="Mode">{t.mode.toUpperCase()}</Field>
      <Field label="Security profile">{t.securityProfile}</Field>
      <Field label="Registered">{formatTime(t.createdAt)}</Field>
    </dl>
  );
}

/** Suspend or resume, with a reason and a confirmation that says what will happen; a refusal shows the API's code and message. */
function Containment({
  kind,
  id,
  status,
  onDone,
  onError,
}: {
  kind: ParticipantKind;
  id: string;
  status: string;
  onDone: () => Promise<void>;
  onError: (error: ApiError | null) => void;
}) {
  const action = status === 'SUSPENDED' ? 'resume' : 'suspend';
  const [reason, setReason] = useState('');
  const [error, setError] = useState<ApiError | null>(null);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const verb = action === 'suspend' ? 'Suspend' : 'Resume';
  const counts = useImpact(kind, id, confirming && kind !== 'bank');

  const confirm = async () => {
    setBusy(true);
    setError(null);
    try {
      await graphql(SUSPENSION[kind][action], { id, reason: reason.trim() || null });
      setConfirming(false);
      setReason('');
      await onDone();
    } catch (caught) {
      const refused = describeError(caught);
      setConfirming(false);
      setError(refused);
      onError(refused);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div class="containment">
      <h2>{verb}</h2>
      <label for="containment-reason">Reason (kept in the audit log)</label>
      <input
        id="containment-reason"
        value={reason}
        onInput={(event) => setReason((event.target as HTMLInputElement).value)}
      />
      <button
        type="button"
        id={`${action}-button`}
        class={action === 'suspend' ? 'danger' : ''}
        onClick={() => setConfirming(true)}
      >
        {verb}…
      </button>
      <ErrorLine error={error} id="containment-error" />
      <Confirm
        open={confirming}
        title={`${verb} ${kind} ${id}?`}
        action={verb}
        danger={action === 'suspend'}
        busy={busy}
        onCancel={() => setConfirming(false)}
        onConfirm={() => void confirm()}
      >
        <p>{EFFECT[kind][action]}</p>
        {kind !== 'bank' && (
          <ImpactLine
            id="containment-impact"
            lines={counts.impact ? suspensionImpact(kind, action, counts.impact) : []}
            error={counts.error}
            waiting={!counts.impact}
          />
        )}
        <p class="meta">Reason: {reason.trim() || '(none given)'}</p>
      </Confirm>
    </div>
  );
}

/** Net debit positions per currency and world: every amount through the platform's one formatter. */
export function Positions({
  positions,
  exponents,
  live = false,
}: {
  positions: Position[];
  exponents: CurrencyExponents;
  live?: boolean;
}) {
  const money = (amount: number | null, currency: string) =>
    amount === null ? 'no cap' : formatAmount(amount, currency, exponents);
  return (
    <div class="positions">
      <h2>
        Liquidity{' '}
        <span class="meta" id="positions-live" data-live={String(live)}>
          {live ? 'live' : 'refreshed every 10 s'}
        </span>
      </h2>
      {positions.length === 0 ? (
        <p class="meta" id="no-positions">
          No position: no cross-bank movement and no cap yet.
        </p>
      ) : (
        <table id="positions">
          <thead>
            <tr>
              <th>Currency</th>
              <th>World</th>
              <th>Net debit cap</th>
              <th>Position</th>
              <th>Reserved</th>
              <th>Headroom</th>
            </tr>
          </thead>
          <tbody>
            {positions.map((p) => (
              <tr key={`${p.currency}/${p.livemode}`} data-currency={p.currency} data-livemode={String(p.livemode)}>
                <td data-label="Currency">{p.currency}</td>
                <td data-label="World">{p.livemode ? 'LIVE' : 'TEST'}</td>
                <td data-label="Net debit cap" class="cap">
                  {money(p.netDebitCap, p.currency)}
                </td>
                <td data-label="Position" class="position">
                  {money(p.position, p.currency)}
                </td>
                <td data-label="Reserved" class="reserved">
                  {money(p.reserved, p.currency)}
                </td>
                <td data-label="Headroom" class="headroom">
                  {p.headroom === null ? '—' : money(p.headroom, p.currency)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </div>
  );
}

/** What was last done to this participant, newest first (the audit log, target = its id). */
function RecentAudit({ target }: { target: string }) {
  const { data, error } = usePoll(
    async () => (await graphql<AuditPage>(AUDIT_LOG, { target, first: 10 })).auditLog.edges.map((edge) => edge.node),
    10_000,
    [target],
  );
  return (
    <div class="recent-audit" id="recent-audit">
      <h2>Recent audit entries</h2>
      <ErrorLine error={error} />
      {data && data.length === 0 && <p class="meta">Nothing recorded yet.</p>}
      {data && <AuditEntries entries={data} />}
      <p>
        <a href={hrefOf('audit')}>The whole audit log</a>
      </p>
    </div>
  );
}
