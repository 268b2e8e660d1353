import { openServiceOrm, type Database } from '@gateway/db';
import { OutboxEvent } from '@gateway/events';
import { Credential } from '@gateway/vault';
import { ConsentAccountEntity } from './account/consent-account.entity';
import { ConsentEntity } from './consent/consent.entity';
import { loadConsent, moveConsent } from './consent/consent.moves';
import { issueAuthorizationCode } from './grant/authorization-code';
import { migrations } from './migrations';
import { TppEntity } from './tpp/tpp.entity';

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
    entities: [TppEntity, ConsentEntity, ConsentAccountEntity, OutboxEvent, Credential],
    migrations,
    foreignSchemas: ['auth'],
  });
  return {
    async approve(consentId, now = new Date()) {
      return orm.em.fork().transactional(async (tx) => {
        const consent = await loadConsent(tx, consentId);
        if (!consent) throw new Error(`no consent ${consentId}`);
        if (!(await moveConsent(tx, consent, 'customer_approved', now, { accountIds: [] }))) throw new Error(`consent ${consentId} moved meanwhile`);
        return issueAuthorizationCode(tx, consent, now);
      });
    },
    async revoke(consentId, now = new Date()) {
      await orm.em.fork().transactional(async (tx) => {
        const consent = await loadConsent(tx, consentId);
        if (!consent || !(await moveConsent(tx, consent, 'revoked', now, { revokedBy: 'customer' }))) throw new Error(`consent ${consentId} could not be revoked`);
      });
    },
  };
}
