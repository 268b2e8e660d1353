import type { Directory } from '@gateway/federation';
import { ERROR_CODES, GatewayError, worldOf } from '@gateway/kernel';
import type { ConsentEntity } from '../consent/consent.entity';

const notOwned = (consent: ConsentEntity): GatewayError =>
  new GatewayError(
    'FUNDS_ACCOUNT_NOT_OWNED',
    `customer: the account consent ${consent.id} is for is not one of this customer's accounts at bank ${consent.bankHandle}`,
  );

/**
 * The IBAN a funds-confirmation consent is approved for: the account the TPP named (its IBAN, or
 * the IBAN its alias stands for in the consent's world), which must be one of the approving
 * customer's accounts at the consent's bank; otherwise FUNDS_ACCOUNT_NOT_OWNED, whether the
 * account is someone else's or exists nowhere.
 */
export async function fundsAccountIban(
  directory: Directory,
  consent: ConsentEntity,
  customerIbans: readonly string[],
  requestId?: string,
): Promise<string> {
  let iban = consent.fundsAccountValue ?? '';
  if (consent.fundsAccountType === 'alias') {
    const routing = await directory.alias({ alias: iban }, requestId, worldOf(consent)).catch((error: unknown) => {
      if (error instanceof GatewayError && ERROR_CODES[error.code].status < 500) return null;
      throw error;
    });
    if (!routing || routing.bankHandle !== consent.bankHandle || routing.status !== 'ACTIVE') throw notOwned(consent);
    iban = routing.iban;
  }
  if (!customerIbans.includes(iban)) throw notOwned(consent);
  return iban;
}
