import type { Database } from '@gateway/db';

type Knex = Database['knex'];

/**
 * Report tests' rows, written straight to the tables (reports only read them): many sessions at
 * known times in one statement, and single sessions or refunds in a given state. The paths that
 * really make them are covered by their own tests; the reports tests need counts and clocks.
 */
export interface SeedSession {
  id: string;
  merchantId: string;
  livemode: boolean;
  status: 'PENDING' | 'COMPLETED' | 'FAILED' | 'EXPIRED';
  amount: number;
  currency?: string;
  createdAt: string;
  completedAt?: string;
  failedAt?: string;
  expiredAt?: string;
  failureCode?: string;
  reference?: string | null;
  debtorBank?: string | null;
  amountRefunded?: number;
}

const SESSION_ROW = (s: SeedSession) => ({
  id: s.id,
  merchant_id: s.merchantId,
  livemode: s.livemode,
  status: s.status,
  amount: s.amount,
  amount_refunded: s.amountRefunded ?? 0,
  currency: s.currency ?? 'LYD',
  destination_type: 'iban',
  destination_value: 'LY83002048000020100120361',
  creditor_iban: 'LY83002048000020100120361',
  creditor_bank: 'seedbank',
  reference: s.reference ?? null,
  checkout_url: `http://127.0.0.1/pay/${s.id}`,
  expires_at: s.expiredAt ?? new Date(Date.parse(s.createdAt) + 900_000).toISOString(),
  debtor_bank: s.debtorBank ?? null,
  failure_code: s.failureCode ?? null,
  created_at: s.createdAt,
  updated_at: s.completedAt ?? s.failedAt ?? s.expiredAt ?? s.createdAt,
  completed_at: s.completedAt ?? null,
  failed_at: s.failedAt ?? null,
  expired_at: s.expiredAt ?? null,
});

export async function seedSessions(knex: Knex, sessions: SeedSession[]): Promise<void> {
  await knex('payments.payment_sessions').insert(sessions.map(SESSION_ROW));
}

/** `count` EXPIRED sessions of one merchant, a second apart from `start`, ids `<prefix>00000001…`: one statement. */
export async function seedManySessions(
  knex: Knex,
  merchantId: string,
  livemode: boolean,
  count: number,
  start: string,
  prefix: string,
): Promise<void> {
  await knex.raw(
    `insert into "payments"."payment_sessions" ("id", "merchant_id", "livemode", "status", "amount", "currency",
       "destination_type", "destination_value", "creditor_iban", "creditor_bank", "reference", "checkout_url",
       "expires_at", "created_at", "updated_at", "expired_at")
     select ? || lpad(g::text, 8, '0'), ?, ?, 'EXPIRED', 100 + g, 'LYD', 'iban', 'LY83002048000020100120361',
       'LY83002048000020100120361', 'seedbank', 'bulk-' || g, 'http://127.0.0.1/pay/x',
       ?::timestamptz + g * interval '1 second' + interval '15 minutes', ?::timestamptz + g * interval '1 second',
       ?::timestamptz + g * interval '1 second', ?::timestamptz + g * interval '1 second' + interval '15 minutes'
     from generate_series(1, ?) as g`,
    [prefix, merchantId, livemode, start, start, start, start, count],
  );
}

export async function seedRefund(
  knex: Knex,
  refund: {
    id: string;
    sessionId: string;
    merchantId: string;
    livemode: boolean;
    amount: number;
    status: 'COMPLETED' | 'FAILED' | 'PROCESSING';
    createdAt: string;
    completedAt?: string;
    reason?: string;
    reference?: string;
    failureCode?: string;
  },
): Promise<void> {
  await knex('payments.refunds').insert({
    id: refund.id,
    session_id: refund.sessionId,
    merchant_id: refund.merchantId,
    livemode: refund.livemode,
    status: refund.status,
    amount: refund.amount,
    currency: 'LYD',
    reason: refund.reason ?? null,
    reference: refund.reference ?? null,
    debtor_bank: 'seedbank',
    debtor_iban: 'LY83002048000020100120361',
    creditor_bank: 'payerbank',
    creditor_iban: 'LY83002048000020100120361',
    settlement_type: 'rail',
    failure_code: refund.failureCode ?? null,
    created_at: refund.createdAt,
    updated_at: refund.completedAt ?? refund.createdAt,
    completed_at: refund.completedAt ?? null,
    failed_at: refund.status === 'FAILED' ? refund.createdAt : null,
  });
}
