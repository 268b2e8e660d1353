import type { EntityManager } from '@mikro-orm/postgresql';
import type { BankRouting, Directory } from '@gateway/federation';
import { GatewayError, parseIban } from '@gateway/kernel';
import { MerchantEntity } from './merchant.entity';

/**
 * The merchant's settlement_iban (the account the operator registered for it, never one named per
 * request) and its participating bank, routed by the institution code inside it: where mandate
 * charges are paid in and refunds are paid out. `use` says what it is needed for, in the refusal.
 */
export async function merchantSettlementAccount(
  em: EntityManager,
  directory: Directory,
  merchantId: string,
  use: string,
  requestId?: string,
): Promise<{ iban: string; bank: BankRouting }> {
  const merchant = await em.findOne(MerchantEntity, { id: merchantId });
  const iban = merchant?.settlementIban ? parseIban(merchant.settlementIban) : null;
  if (!iban) throw new GatewayError('VALIDATION_ERROR', `settlement_iban: the merchant has none; ${use}`);
  const bank = await directory.bank({ institutionCode: iban.institutionCode }, requestId).catch((error: unknown) => {
    if (error instanceof GatewayError && error.code === 'BANK_NOT_REGISTERED') {
      throw new GatewayError(
        'BANK_NOT_PARTICIPATING',
        `the merchant's settlement_iban is at no participating bank (institution code ${iban.institutionCode})`,
      );
    }
    throw error;
  });
  return { iban: iban.iban, bank };
}
