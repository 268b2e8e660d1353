import type { EntityManager } from '@mikro-orm/postgresql';
import { newId } from '@gateway/kernel';
import type { ConsentEntity } from '../consent/consent.entity';
import { ConsentAccountEntity } from './consent-account.entity';

/*
 * The one writer of open_banking.consent_accounts (CONVENTIONS "Data": one owner per table).
 * Rows are written once, when the customer approves; readers (account information) only read.
 */

/**
 * Records the accounts a customer consented to share, in the approval's transaction: one row
 * and one new acc_ id per IBAN (duplicates collapse), in the order given. Returns the rows so
 * the caller can fix the consent's account_ids with the same ids.
 */
export function recordConsentAccounts(
  tx: EntityManager,
  consent: Pick<ConsentEntity, 'id' | 'bankHandle' | 'livemode'>,
  ibans: readonly string[],
  now: Date,
): ConsentAccountEntity[] {
  return [...new Set(ibans)].map((iban) =>
    tx.create(ConsentAccountEntity, {
      id: newId('account'),
      consentId: consent.id,
      livemode: consent.livemode,
      iban,
      bankHandle: consent.bankHandle,
      createdAt: now,
    }),
  );
}
