import { createHash, randomBytes } from 'node:crypto';
import type { ServiceOrm } from '@gateway/db';
import { newId } from '@gateway/kernel';
import { authoriseConsent, openOpenBankingTestOrm } from '@gateway/subgraph-open-banking/testing';
import { vault } from '@gateway/vault';
import { bearer, startPaymentBank, type PaymentBank } from './payments';
import type { TestPlatform } from './platform';

export const OB_REDIRECT = 'https://tpp.example/callback';
export const ALL_OB_SCOPES = ['accounts:read', 'balances:read', 'transactions:read', 'payments:write'];
const ACCESS_TOKEN_TTL_MS = 15 * 60_000;

/** An S256 challenge of a random verifier (the verifier itself is not needed before POST /ob/token). */
const challenge = (): string => createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url');

export interface ObTokens {
  accessToken: string;
  refreshToken: string;
  family: string;
}

export interface Grant {
  consentId: string;
  accountIds: string[];
  tokens: ObTokens;
  /** Bearer at_ + X-Consent-Id of this grant (another consent id to try a mismatch). */
  headers(consentId?: string): Record<string, string>;
}

/**
 * Open Banking state for tests of account data and revocation. The consent page and the token
 * endpoint land separately, so their effects are produced here through the same code they use:
 * the consent is created through REST, approved with the transition table's move plus
 * consent_accounts rows (@gateway/subgraph-open-banking/testing), and tokens are issued into the
 * vault as the token endpoint does (at_/rt_, ownerId = consent id, one grt_ family).
 */
export interface OpenBankingSeeds {
  /** A sandbox bank with Open Banking on and every scope supported. */
  bank(): Promise<PaymentBank>;
  /** Turns Open Banking on for a bank registered elsewhere (the minimal core's). */
  enableOpenBanking(handle: string, bankKey: string): Promise<void>;
  createConsent(tppToken: string, bankHandle: string, scopes?: string[]): Promise<string>;
  /** The consent approved for these accounts; returns their acc_ ids. */
  authorise(consentId: string, accounts: Array<{ iban: string; bankHandle: string }>): Promise<string[]>;
  issueTokens(consentId: string, scopes: string[], options?: { accessExpiresAt?: Date }): Promise<ObTokens>;
  /** Consent created, approved for the accounts and tokens issued with its scopes. */
  grant(
    tppToken: string,
    bankHandle: string,
    accounts: Array<{ iban: string; bankHandle: string }>,
    scopes?: string[],
  ): Promise<Grant>;
}

export async function openBankingSeeds(t: TestPlatform): Promise<OpenBankingSeeds> {
  // On the platform's pool, and never closed: closing a MikroORM would end that shared pool.
  const orm: ServiceOrm = await openOpenBankingTestOrm(t.platform.db);

  const enableOpenBanking = async (handle: string, bankKey: string) => {
    const patched = await t.rest('PATCH', `/banks/${handle}`, {
      headers: { 'x-service-bank-key': bankKey },
      body: { ob_enabled: true, ob_scopes_supported: ALL_OB_SCOPES, max_consent_expiry_days: 90 },
    });
    if (patched.status !== 200)
      throw new Error(`enabling Open Banking failed: ${patched.status} ${JSON.stringify(patched.body)}`);
  };

  const createConsent = async (
    tppToken: string,
    bankHandle: string,
    scopes = ['accounts:read', 'balances:read', 'transactions:read'],
  ) => {
    const created = await t.rest('POST', '/ob/consents', {
      headers: bearer(tppToken),
      body: {
        bank_handle: bankHandle,
        scopes,
        redirect_uri: OB_REDIRECT,
        state: 'st',
        code_challenge: challenge(),
        code_challenge_method: 'S256',
        expiry_days: 30,
      },
    });
    if (created.status !== 201)
      throw new Error(`consent creation failed: ${created.status} ${JSON.stringify(created.body)}`);
    return created.body.consent_id as string;
  };

  const authorise: OpenBankingSeeds['authorise'] = (consentId, accounts) =>
    authoriseConsent(orm.em, consentId, accounts);

  const issueTokens: OpenBankingSeeds['issueTokens'] = async (consentId, scopes, { accessExpiresAt } = {}) => {
    const family = newId('grant');
    // As the token endpoint does: the tokens name their TPP (per-TPP limits key on it).
    const [consent] = await orm.em
      .fork()
      .execute<Array<{ tpp_id: string }>>(`select "tpp_id" from "open_banking"."consents" where "id" = ?`, [consentId]);
    return orm.em.fork().transactional(async (tx) => {
      const access = vault.issue(tx, {
        kind: 'ob_access_token',
        ownerId: consentId,
        clientId: consent?.tpp_id,
        prefix: 'at_',
        scopes,
        family,
        expiresAt: accessExpiresAt ?? new Date(Date.now() + ACCESS_TOKEN_TTL_MS),
      });
      const refresh = vault.issue(tx, {
        kind: 'ob_refresh_token',
        ownerId: consentId,
        clientId: consent?.tpp_id,
        prefix: 'rt_',
        scopes,
        family,
        expiresAt: new Date(Date.now() + 90 * 86_400_000),
      });
      return { accessToken: access.raw, refreshToken: refresh.raw, family };
    });
  };

  return {
    async bank() {
      const bank = await startPaymentBank(t);
      await enableOpenBanking(bank.handle, bank.bankKey);
      return bank;
    },
    enableOpenBanking,
    createConsent,
    authorise,
    issueTokens,
    async grant(tppToken, bankHandle, accounts, scopes = ['accounts:read', 'balances:read', 'transactions:read']) {
      const consentId = await createConsent(tppToken, bankHandle, scopes);
      const accountIds = await authorise(consentId, accounts);
      const tokens = await issueTokens(consentId, scopes);
      return {
        consentId,
        accountIds,
        tokens,
        headers: (id = consentId) => ({ authorization: `Bearer ${tokens.accessToken}`, 'x-consent-id': id }),
      };
    },
  };
}
