import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '@gateway/kernel';
import type { PaymentSessionEntity } from '../session/session.entity';

/**
 * Records, in the caller's transaction, that the payer's bank owes the payee's bank the amount
 * of a cross-bank payment whose credit was booked at the creditor bank. Once per session: the
 * engine and the credit-confirmed callback may both get here, in either order.
 * Same-bank payments move nothing between banks and record nothing.
 * This file is the one writer of payments.interbank_obligations (a settlement cycle marking rows
 * settled belongs here too). Raw SQL because "once per session" is `on conflict do nothing` on
 * the session's unique index, which must not abort the caller's transaction the way a failed
 * MikroORM insert would.
 */
export async function recordObligation(em: EntityManager, session: PaymentSessionEntity, now: Date): Promise<void> {
  if (!session.debtorBank || session.debtorBank === session.creditorBank) return;
  await em.execute(
    `insert into "payments"."interbank_obligations" ("id", "session_id", "debtor_bank", "creditor_bank", "amount", "currency", "created_at", "settlement_cycle_id")
     values (?, ?, ?, ?, ?, ?, ?, null) on conflict ("session_id") do nothing`,
    [newId('obligation'), session.id, session.debtorBank, session.creditorBank, session.amount.toString(), session.currency, now],
  );
}
