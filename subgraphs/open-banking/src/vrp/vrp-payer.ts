import type { EntityManager } from '@mikro-orm/postgresql';
import type { BankCorePool } from '@gateway/bank-core-client';
import type { BankRouting } from '@gateway/federation';
import { GatewayError, worldOf } from '@gateway/kernel';
import type { ConsentEntity } from '../consent/consent.entity';
import { loadTerms } from './vrp-terms';

/**
 * The account a VRP consent pays from, fixed when the customer approves: the approving
 * customer's first account (by IBAN) at the consent's bank held in the consent's currency, read
 * from the core. None in that currency: 422 CURRENCY_MISMATCH, and the consent stays awaiting.
 */
export async function vrpPayerIban(
  em: EntityManager,
  cores: BankCorePool,
  bank: BankRouting,
  consent: ConsentEntity,
  customerIbans: readonly string[],
  requestId?: string,
): Promise<string> {
  const terms = await loadTerms(em, consent.id);
  if (!terms) throw new GatewayError('CONSENT_NOT_FOUND', `no consent ${consent.id}`);
  const core = cores.for(bank, worldOf(consent));
  for (const iban of [...customerIbans].sort()) {
    const account = await core.getAccount(iban, requestId ? { requestId } : {});
    if (account.currency === terms.currency) return iban;
  }
  throw new GatewayError(
    'CURRENCY_MISMATCH',
    `customer: no account in ${terms.currency} at bank ${consent.bankHandle} to pay this consent's payments from`,
  );
}
