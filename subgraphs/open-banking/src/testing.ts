import { openServiceOrm, type Database, type EntityManager, type ServiceOrm } from '@gateway/db';
import { newId } from '@gateway/kernel';
import { ConsentAccountEntity } from './account/consent-account.entity';
import { loadConsent, moveConsent } from './consent/consent.moves';
import { issueAuthorizationCode } from './grant/authorization-code';
import { OPEN_BANKING_ENTITIES } from './entities';
import { migrations } from './migrations';

/**
 * Test helpers, published as `@gateway/subgraph-open-banking/testing` (not through index.ts):
 * the customer's approval without the consent page, for tests of what comes after it.
 */
export interface OpenBankingTestKit {
  /**
   * Moves an AWAITING_AUTHORISATION consent to AUTHORISED (no accounts) through the one writer,
   * as the consent page's approval does, and issues its authorization code. Returns the raw code.
   */
  approve(consentId: string, now?: Date): Promise<string>;
  /** Moves an AUTHORISED consent to REVOKED (by the customer), as a revocation does; tokens are left to the revocation's owner. */
  revoke(consentId: string, now?: Date): Promise<void>;
}

/** On the caller's database pool; nothing to close (closing the ORM would close the shared pool: db.close() ends both). */
export async function openBankingTestKit(db: Database): Promise<OpenBankingTestKit> {
  const orm = await openServiceOrm(db, {
    schema: 'open_banking',
    entities: OPEN_BANKING_ENTITIES,
    migrations,
    foreignSchemas: ['auth'],
  });
  return {
    async approve(consentId, now = new Date()) {
      return orm.em.fork().transactional(async (tx) => {
        const consent = await loadConsent(tx, consentId);
        if (!consent) throw new Error(`no consent ${consentId}`);
        if (!(await moveConsent(tx, consent, 'customer_approved', now, { accountIds: [] })))
          throw new Error(`consent ${consentId} moved meanwhile`);
        return issueAuthorizationCode(tx, consent, now);
      });
    },
    async revoke(consentId, now = new Date()) {
      await orm.em.fork().transactional(async (tx) => {
        const consent = await loadConsent(tx, consentId);
        if (!consent || !(await moveConsent(tx, consent, 'revoked', now, { revokedBy: 'customer' })))
          throw new Error(`consent ${consentId} could not be revoked`);
      });
    },
  };
}

/** The service's ORM on the caller's pool (never closed: see openBankingTestKit), for seeds that write in its transactions. */
export function openOpenBankingTestOrm(db: Database): Promise<ServiceOrm> {
  return openServiceOrm(db, {
    schema: 'open_banking',
    entities: OPEN_BANKING_ENTITIES,
    migrations,
    foreignSchemas: ['auth'],
  });
}

/**
 * What the customer's approval does to a consent, with accounts: the 'customer_approved' move
 * (consent.granted written) and a consent_accounts row, with a fresh acc_ id, per shared account.
 * Returns the acc_ ids in the order given (for tests of account data and revocation).
 */
export async function authoriseConsent(
  root: EntityManager,
  consentId: string,
  accounts: Array<{ iban: string; bankHandle: string }>,
  now = new Date(),
): Promise<string[]> {
  return root.fork().transactional(async (tx) => {
    const consent = await loadConsent(tx, consentId);
    if (!consent) throw new Error(`no consent ${consentId}`);
    // One millisecond apart: the accounts are listed in approval order.
    const rows = accounts.map((account, index) =>
      tx.create(ConsentAccountEntity, {
        id: newId('account'),
        consentId,
        // The consent's world, as the approval records it.
        livemode: consent.livemode,
        iban: account.iban,
        bankHandle: account.bankHandle,
        createdAt: new Date(now.getTime() + index),
      }),
    );
    const ids = rows.map((row) => row.id);
    if (!(await moveConsent(tx, consent, 'customer_approved', now, { accountIds: ids })))
      throw new Error(`consent ${consentId} moved meanwhile`);
    return ids;
  });
}
