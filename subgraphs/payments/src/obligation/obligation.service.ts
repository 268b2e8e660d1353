import type { EntityManager } from '@mikro-orm/postgresql';
import type { OneStatement } from '@gateway/db';
import { newId, type Currency } from '@gateway/kernel';
import type { Movement } from '../movement/movement';

/** What one bank owes another in one currency: one obligation, or the sum of many between the same two banks. */
export interface Owed {
  debtorBank: string;
  creditorBank: string;
  currency: Currency;
  /** Minor units, positive. */
  amount: bigint;
}

type ObligatedMovement = Pick<Movement, 'id' | 'livemode' | 'debtorBank' | 'creditorBank' | 'amount' | 'currency'>;

/**
 * Records that the payer's bank owes the payee's bank the amount of a cross-bank movement (a
 * session's, a charge's, a payment order's, a VRP payment's or a refund's; session_id holds the movement id) whose credit was
 * booked at the creditor bank: a part (`obligation`) of the caller's OneStatement, written only
 * if part `when` changed a row. Once per movement: the engine and the credit-confirmed callback
 * may both get here, in either order (`on conflict do nothing` on the movement's unique index).
 * Same-bank payments move nothing between banks and record nothing. This file is the one writer
 * of payments.interbank_obligations (a settlement cycle taking rows is below).
 */
export function recordObligationIn(
  statement: OneStatement,
  movement: ObligatedMovement,
  now: Date,
  when: string,
): void {
  if (!movement.debtorBank || movement.debtorBank === movement.creditorBank) return;
  statement.sql(
    'obligation',
    `insert into "payments"."interbank_obligations" ("id", "session_id", "livemode", "debtor_bank", "creditor_bank", "amount", "currency", "created_at", "settlement_cycle_id")
     select ?, ?, ?, ?, ?, ?, ?, ?, null where ${statement.changed(when)} on conflict ("session_id") do nothing returning 1`,
    [
      newId('obligation'),
      movement.id,
      movement.livemode,
      movement.debtorBank,
      movement.creditorBank,
      movement.amount.toString(),
      movement.currency,
      now,
    ],
  );
}

/**
 * A settlement cycle takes every obligation of its world no cycle has taken yet, in the cycle's transaction.
 * `settlement_cycle_id is null` is re-checked on each row under its row lock, so of two cycles
 * (two processes) an obligation goes to exactly one; one not yet committed by its payment goes to
 * the next cycle. Raw SQL: one statement over any number of rows.
 */
export async function claimObligations(tx: EntityManager, cycleId: string, livemode: boolean): Promise<number> {
  const claimed: Array<{ count: string | number }> = await tx.execute(
    `with claimed as (update "payments"."interbank_obligations" set "settlement_cycle_id" = ? where "settlement_cycle_id" is null and "livemode" = ? returning 1)
     select count(*) as "count" from claimed`,
    [cycleId, livemode],
  );
  return Number(claimed[0]?.count ?? 0);
}

/** Whether any obligation waits for a cycle (the scheduled run makes no empty cycles). */
export async function anyUnclaimed(em: EntityManager, livemode: boolean): Promise<boolean> {
  const rows: unknown[] = await em.execute(
    `select 1 from "payments"."interbank_obligations" where "settlement_cycle_id" is null and "livemode" = ? limit 1`,
    [livemode],
  );
  return rows.length > 0;
}

/**
 * What each bank owes each other bank in a cycle, per currency: the database sums (exact numeric
 * sums of bigint amounts, read back as text into bigint), so a cycle of any size reads a few
 * hundred rows at most.
 */
export async function owedInCycle(em: EntityManager, cycleId: string): Promise<Owed[]> {
  const rows: Array<{ debtor_bank: string; creditor_bank: string; currency: Currency; total: string }> =
    await em.execute(
      `select "debtor_bank", "creditor_bank", "currency", sum("amount")::text as "total"
     from "payments"."interbank_obligations" where "settlement_cycle_id" = ?
     group by "debtor_bank", "creditor_bank", "currency"`,
      [cycleId],
    );
  return rows.map((row) => ({
    debtorBank: row.debtor_bank,
    creditorBank: row.creditor_bank,
    currency: row.currency,
    amount: BigInt(row.total),
  }));
}

/**
 * Obligations whose money has not moved yet at a bank, per bank: not taken by a cycle, or taken
 * by one whose position for that bank (and currency) is not SETTLED. Reads only unclaimed rows
 * and the rows of unsettled cycles (both indexed), never the whole history.
 */
export async function unsettledPerBank(em: EntityManager): Promise<Array<{ bank: string; count: number }>> {
  const rows: Array<{ bank: string; count: string }> = await em.execute(
    `with open_rows as (
       select o."debtor_bank", o."creditor_bank", o."currency", o."settlement_cycle_id" from "payments"."interbank_obligations" o where o."settlement_cycle_id" is null
       union all
       select o."debtor_bank", o."creditor_bank", o."currency", o."settlement_cycle_id" from "payments"."interbank_obligations" o
       join "payments"."settlement_cycles" c on c."id" = o."settlement_cycle_id" and c."status" <> 'SETTLED'),
     sides as (
       select "debtor_bank" as "bank", "currency", "settlement_cycle_id" from open_rows
       union all select "creditor_bank", "currency", "settlement_cycle_id" from open_rows)
     select s."bank", count(*)::text as "count" from sides s
     left join "payments"."settlement_positions" p on p."cycle_id" = s."settlement_cycle_id" and p."bank_handle" = s."bank" and p."currency" = s."currency"
     where s."settlement_cycle_id" is null or p."status" in ('PENDING', 'FAILED')
     group by s."bank" order by s."bank"`,
  );
  return rows.map((row) => ({ bank: row.bank, count: Number(row.count) }));
}
