import type { Directory } from '@gateway/federation';
import { GatewayError } from '@gateway/kernel';
import type { PaymentSessionEntity } from '../session/session.entity';

/**
 * Whether a PENDING session may still be paid, checked before the payer's bank is asked for the
 * OTP (API-CONTRACT "Operator controls"): its merchant not suspended (403 MERCHANT_SUSPENDED; the
 * session stays PENDING and can be paid once the merchant is resumed, or expires), and the bank
 * it pays into still taking new work (422 BANK_NOT_PARTICIPATING; the payer's own bank is
 * checked where its OTP is asked, PayerOtp). A session already authorized is work in flight and
 * is never refused here. The merchant's status comes with the session (openCheckoutCheck reads
 * both in one statement, and counts no OTP check for a SUSPENDED merchant).
 */
export async function assertPayable(
  directory: Directory,
  session: Pick<PaymentSessionEntity, 'id' | 'creditorBank'>,
  merchantStatus: string | null,
  requestId?: string,
): Promise<void> {
  if (merchantStatus === 'SUSPENDED')
    throw new GatewayError(
      'MERCHANT_SUSPENDED',
      `the merchant of session ${session.id} is suspended by the operator; it cannot be paid now`,
    );
  await directory.bank({ handle: session.creditorBank }, requestId);
}
