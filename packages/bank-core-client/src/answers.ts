import type { z } from '@gateway/kernel';
import { accountAnswer, movementAnswer, statementAnswer, statementItem } from './schemas';
import type { CoreAccount, CoreMovement, CoreStatement, CoreTransaction } from './types';

/**
 * Reading a core's answers with the schemas of schemas.ts: liberal in what is accepted (see
 * API-CONTRACT "Bank core interface"), never depending on a field the spec does not show.
 */
export type Readout<T> = { ok: true; value: T } | { ok: false; problem: string };

function read<S extends z.ZodType, T>(schema: S, body: unknown, map: (value: z.infer<S>) => Readout<T>): Readout<T> {
  const result = schema.safeParse(body);
  if (!result.success) {
    return {
      ok: false,
      problem: result.error.issues.map((i) => `${i.path.join('.') || 'body'}: ${i.message}`).join('; '),
    };
  }
  return map(result.data);
}

const idOf = (value: string | number | undefined): string | null =>
  value === undefined || String(value).trim() === '' ? null : String(value);

const toNumber = (value: number | string): number => (typeof value === 'number' ? value : Number(value));

export interface MovementRequested {
  iban: string;
  amount: number;
  currency: string;
  reference: string;
}

/**
 * A 2xx to a debit or credit: booked whatever the body, unless it echoes a field of another
 * movement. The body may be anything (null, HTML text, an array): only an object is looked into.
 */
export function readMovement(body: unknown, requested: MovementRequested): Readout<CoreMovement> {
  const object = body && typeof body === 'object' && !Array.isArray(body) ? body : {};
  // Every field of movementAnswer is optional and caught: this parse cannot fail.
  const answer = movementAnswer.parse(object);
  const differs: string[] = [];
  if (answer.reference !== undefined && String(answer.reference) !== requested.reference)
    differs.push(`reference ${String(answer.reference)}`);
  if (answer.amount !== undefined && !sameAmount(answer.amount, requested.amount))
    differs.push(`amount ${String(answer.amount)}`);
  if (answer.currency !== undefined && answer.currency.trim().toUpperCase() !== requested.currency)
    differs.push(`currency ${answer.currency}`);
  if (answer.iban !== undefined && compactIban(answer.iban) !== compactIban(requested.iban))
    differs.push(`iban ${answer.iban}`);
  if (differs.length) return { ok: false, problem: `the answer is for another movement (${differs.join(', ')})` };
  return {
    ok: true,
    value: {
      transactionId: idOf(answer.transaction_id) ?? idOf(answer.id),
      bookedAt: instantOf(answer.booked_at) ?? instantOf(answer.booking_date) ?? instantOf(answer.date),
      duplicate: false,
    },
  };
}

export const readAccount = (requestedIban: string, body: unknown): Readout<CoreAccount> =>
  read(accountAnswer, body, (a) => {
    const balance = toNumber(a.balance);
    if (!Number.isSafeInteger(balance)) return { ok: false, problem: 'balance: not a safe integer of minor units' };
    return {
      ok: true,
      value: {
        iban: a.iban?.trim() ? compactIban(a.iban) : requestedIban,
        holderName: a.holder_name ?? a.account_holder ?? a.name ?? '',
        customerRef: a.customer_ref ?? null,
        balance,
        currency: a.currency,
      },
    };
  });

export const readStatement = (requestedIban: string, body: unknown): Readout<CoreStatement> =>
  read(statementAnswer, body, (s) => {
    const items = Array.isArray(s) ? s : s.transactions;
    const iban = !Array.isArray(s) && s.iban?.trim() ? compactIban(s.iban) : requestedIban;
    const transactions: CoreTransaction[] = [];
    for (const [index, item] of items.entries()) {
      const line = transactionOf(item);
      if (typeof line === 'string') return { ok: false, problem: `transactions.${index}: ${line}` };
      transactions.push(line);
    }
    return { ok: true, value: { iban, transactions } };
  });

function transactionOf(item: z.infer<typeof statementItem>): CoreTransaction | string {
  const signed = toNumber(item.amount);
  if (!Number.isSafeInteger(signed)) return 'amount: not a safe integer of minor units';
  const indicator = item.credit_debit_indicator?.toUpperCase() as 'CREDIT' | 'DEBIT' | undefined;
  return {
    transactionId: idOf(item.transaction_id) ?? idOf(item.id),
    bookingDate: (item.booking_date ?? item.date ?? item.booked_at)!.slice(0, 10),
    amount: Math.abs(signed),
    currency: item.currency,
    creditDebitIndicator: indicator ?? (signed < 0 ? 'DEBIT' : 'CREDIT'),
    description: item.description ?? '',
    reference: item.reference ?? item.ref ?? item.end_to_end_id ?? null,
  };
}

function sameAmount(echo: number | string, amount: number): boolean {
  if (typeof echo === 'number') return echo === amount;
  return /^\s*-?\d+\s*$/.test(echo) && Number(echo) === amount;
}

function compactIban(iban: string): string {
  return iban.replace(/\s+/g, '').toUpperCase();
}

/** An ISO 8601 instant or date the core said, normalized; null when it does not parse. */
function instantOf(value: string | undefined): string | null {
  if (!value?.trim()) return null;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? null : at.toISOString();
}
