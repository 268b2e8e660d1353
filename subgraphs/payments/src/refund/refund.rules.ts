import { formatMoney, GatewayError, rules, z } from '@gateway/kernel';
import { filterFields, listRules, statusRule } from '../listing/list.rules';
import { initialMetadataRule } from '../metadata/metadata.rules';
import { DESCRIPTION_MAX, REFERENCE_MAX } from '../session/session.rules';

/** POST /payments/sessions/{id}/refunds (and a mandate charge's): everything checked before anything is asked or written. */
export const refundSessionRules = z
  .object({
    /** Absent: all that is left of the session amount. */
    amount: rules.amount.nullish(),
    reason: rules.text(DESCRIPTION_MAX).nullish(),
    reference: rules.text(REFERENCE_MAX).nullish(),
    metadata: initialMetadataRule.nullish(),
  })
  .strict();
export type RefundSessionRequest = z.infer<typeof refundSessionRules>;

/**
 * The amount a refund takes: the one asked for, or all that is left (the session's or the charge's
 * amount minus refunds not FAILED), refused when it is more than what is left or nothing is left.
 * What is left is read before the refund is written; the write takes it again under the refunded
 * row, so a refund racing another is refused there when the two no longer fit (reserveRefundIn).
 * `noun` names what is refunded in the refusal.
 */
export function refundAmountOf(
  refunded: { id: string; amount: bigint; amountRefunded: bigint; currency: string },
  requested: number | null | undefined,
  noun = 'session',
): bigint {
  const left = refunded.amount - refunded.amountRefunded;
  const amount = requested == null ? left : BigInt(requested);
  if (left <= 0n)
    throw new GatewayError('REFUND_AMOUNT_EXCEEDED', `${noun} ${refunded.id} is refunded in full: nothing is left`);
  if (amount > left)
    throw new GatewayError(
      'REFUND_AMOUNT_EXCEEDED',
      `amount: ${formatMoney(amount, refunded.currency)} is more than the ${formatMoney(left, refunded.currency)} left to refund of ${noun} ${refunded.id}`,
    );
  return amount;
}

/** A session's refunds (GET /payments/sessions/{id}/refunds): page and filters; statuses as the record shows them. */
export const refundListRules = listRules({
  status: statusRule(['PROCESSING', 'COMPLETED', 'FAILED'] as const).nullish(),
  reference: filterFields.reference,
  metadata: filterFields.metadata,
});
