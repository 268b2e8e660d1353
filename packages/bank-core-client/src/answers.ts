import { CURRENCIES, z, type Currency } from '@gateway/kernel';
import type { CoreAccount, CoreMovement, CoreStatement } from './types';

/** What a core must answer, checked before anything reaches the payment engine. */
const currency = z.enum(Object.keys(CURRENCIES) as [Currency, ...Currency[]]);
const minorUnits = z.number().refine(Number.isSafeInteger, 'integer minor units');

const movement = z.object({
  transaction_id: z.string().min(1),
  reference: z.string(),
  iban: z.string(),
  amount: minorUnits,
  currency,
  balance_after: minorUnits.nullish(),
  booked_at: z.string().nullish(),
});

const account = z.object({
  iban: z.string(),
  holder_name: z.string(),
  customer_ref: z.string().nullish(),
  balance: minorUnits,
  currency,
});

const statement = z.object({
  iban: z.string().optional(),
  transactions: z.array(
    z.object({
      transaction_id: z.string().min(1),
      booking_date: z.string().regex(/^\d{4}-\d{2}-\d{2}/),
      amount: minorUnits,
      currency,
      credit_debit_indicator: z.enum(['CREDIT', 'DEBIT']),
      description: z.string().nullish(),
      reference: z.string().nullish(),
    }),
  ),
});

export type Readout<T> = { ok: true; value: T } | { ok: false; problem: string };

function read<S extends z.ZodType, T>(schema: S, body: unknown, map: (value: z.infer<S>) => T): Readout<T> {
  const result = schema.safeParse(body);
  if (!result.success) {
    return { ok: false, problem: result.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; ') };
  }
  return { ok: true, value: map(result.data) };
}

export const readMovement = (body: unknown): Readout<CoreMovement> =>
  read(movement, body, (m) => ({
    transactionId: m.transaction_id,
    reference: m.reference,
    iban: m.iban,
    amount: m.amount,
    currency: m.currency,
    balanceAfter: m.balance_after ?? null,
    bookedAt: m.booked_at ?? null,
  }));

export const readAccount = (body: unknown): Readout<CoreAccount> =>
  read(account, body, (a) => ({
    iban: a.iban,
    holderName: a.holder_name,
    customerRef: a.customer_ref ?? null,
    balance: a.balance,
    currency: a.currency,
  }));

export const readStatement = (iban: string, body: unknown): Readout<CoreStatement> =>
  read(statement, body, (s) => ({
    iban: s.iban ?? iban,
    transactions: s.transactions.map((t) => ({
      transactionId: t.transaction_id,
      bookingDate: t.booking_date.slice(0, 10),
      amount: t.amount,
      currency: t.currency,
      creditDebitIndicator: t.credit_debit_indicator,
      description: t.description ?? '',
      reference: t.reference ?? null,
    })),
  }));
