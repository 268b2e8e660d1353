import type { EntityManager } from '@mikro-orm/postgresql';
import type { Currency } from '@gateway/kernel';
import type { ObBank } from '../banks/bank-capabilities';
import type { ConsentEntity } from '../consent/consent.entity';
import { lockConsent } from '../consent/consent.moves';

/** Why a new order needs SCA, or null when it is exempt. */
export type ScaReason = 'above_exemption_limit' | 'exemption_count_reached' | 'exemption_amount_reached' | null;

/**
 * Whether a new payment order of this consent needs SCA (spec rule 5, and PSD2 RTS art. 16: the
 * exemption holds per order up to the bank's sca_exemption_limit, and only while the consent's
 * exempted orders since its last SCA stay within sca_exemption_max_count and, in the order's
 * currency, sca_exemption_cumulative_limit). The last SCA is the consent's approval or the latest
 * order of the consent authorised at its sca_url, whichever came later; every exempted order since
 * counts, whatever became of it.
 *
 * Runs in the transaction that writes the order, after taking the consent's row lock: of two
 * orders of one consent sent at once, the second is decided after the first is written, so both
 * cannot slip under the caps. The consent's row is locked and read (authorised_at), never written.
 */
export async function scaReasonFor(
  tx: EntityManager,
  consent: Pick<ConsentEntity, 'id'>,
  order: { amount: number; currency: Currency },
  bank: Pick<ObBank, 'scaExemptionLimit' | 'scaExemptionMaxCount' | 'scaExemptionCumulativeLimit'>,
): Promise<ScaReason> {
  if (order.amount > bank.scaExemptionLimit) return 'above_exemption_limit';
  await lockConsent(tx, consent.id);
  // The last SCA is one value, read once (an uncorrelated subquery: PostgreSQL computes it before
  // the scan). Written as a CTE joined to the orders it was inlined and computed again for every
  // order of the consent: creation took 600 ms at 2,000 orders (issue 52, the soak). Both reads
  // are index ranges of the consent (payment_orders_consent_exempt_index, _sca_index).
  const [exempted] = await tx.execute<Array<{ count: number; amount: string }>>(
    `select count(*)::int as "count", coalesce(sum(o."amount") filter (where o."currency" = ?), 0)::text as "amount"
     from "open_banking"."payment_orders" o
     where o."consent_id" = ? and o."sca_url" is null
       and o."created_at" >= coalesce((
         select greatest(c."authorised_at",
           (select max(s."processing_at") from "open_banking"."payment_orders" s where s."consent_id" = c."id" and s."sca_url" is not null))
         from "open_banking"."consents" c where c."id" = ?), '-infinity')`,
    [order.currency, consent.id, consent.id],
  );
  if ((exempted?.count ?? 0) >= bank.scaExemptionMaxCount) return 'exemption_count_reached';
  if (BigInt(exempted?.amount ?? '0') + BigInt(order.amount) > BigInt(bank.scaExemptionCumulativeLimit))
    return 'exemption_amount_reached';
  return null;
}
