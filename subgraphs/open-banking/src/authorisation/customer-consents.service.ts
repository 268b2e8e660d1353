import type { EntityManager } from '@mikro-orm/postgresql';
import type { BankCorePool } from '@gateway/bank-core-client';
import type { Directory, OtpGuard } from '@gateway/federation';
import { parseInput, rules, z, type Logger } from '@gateway/kernel';
import { ConsentAccountEntity } from '../account/consent-account.entity';
import { ConsentEntity } from '../consent/consent.entity';
import { revokeConsent } from '../consent/consent.revocation';
import { consentNotFound } from '../consent/consent.service';
import { ConsentStatus, effectiveConsentStatus } from '../consent/consent.type';
import { TppEntity } from '../tpp/tpp.entity';
import { loadTerms } from '../vrp/vrp-terms';
import { toVrpTerms } from '../vrp/vrp.type';
import type { CustomerAccountsClient } from './customer-accounts';
import {
  issueCustomerConsentsToken,
  readCustomerConsentsToken,
  type ConsentsCustomer,
} from './customer-consents-token';
import type { CustomerConsent, CustomerConsentRevocation, CustomerConsentsSession } from './customer-consents.type';
import { resolveCustomer, verifyCustomerOtp } from './customer-verification';

const signInRules = z
  .object({
    bankHandle: z.string().trim().min(1, 'must not be empty').max(64, 'must be at most 64 characters'),
    customer: rules.customer,
    otp: rules.otp,
  })
  .strict();

/**
 * The customer's own consents (GET /ob/my-consents), without their bank's app: they sign in at
 * one bank with alias or IBAN and OTP (exactly as at approval: customer-verification.ts), get a
 * 10-minute token, see every AUTHORISED consent whose consented accounts include one of their
 * accounts at that bank, and revoke any of them (revoked_by customer, every token dead). Live
 * consents only: a test TPP's consents are not listed.
 */
export class CustomerConsentsService {
  constructor(
    private readonly platformSecret: string,
    private readonly directory: Directory,
    private readonly cores: BankCorePool,
    private readonly otpGuard: OtpGuard,
    private readonly accounts: CustomerAccountsClient,
    private readonly logger: Logger,
  ) {}

  async signIn(
    em: EntityManager,
    input: unknown,
    client: string | null,
    requestId?: string,
  ): Promise<CustomerConsentsSession> {
    const request = parseInput(signInRules, JSON.parse(JSON.stringify(input)));
    const customer = await resolveCustomer(this.directory, request.customer, request.bankHandle, 'live', requestId);
    await verifyCustomerOtp(this.directory, this.cores, this.otpGuard, {
      bankHandle: customer.bankHandle,
      bankCustomerRef: customer.bankCustomerRef,
      world: 'live',
      client,
      otp: request.otp,
      requestId,
    });
    const who = { bankHandle: customer.bankHandle, bankCustomerRef: customer.bankCustomerRef };
    const { token, expiresAt } = issueCustomerConsentsToken(this.platformSecret, who);
    return { token, expiresAt, consents: await this.authorised(em, who, requestId) };
  }

  list(em: EntityManager, token: string | null | undefined, requestId?: string): Promise<CustomerConsent[]> {
    return this.authorised(em, readCustomerConsentsToken(this.platformSecret, token), requestId);
  }

  /** Revokes one of the customer's consents; anyone else's (or an unknown one) is CONSENT_NOT_FOUND. */
  async revoke(
    em: EntityManager,
    token: string | null | undefined,
    consentId: string,
    requestId?: string,
  ): Promise<CustomerConsentRevocation> {
    const customer = readCustomerConsentsToken(this.platformSecret, token);
    const owned = await this.consentIdsOf(em, customer, requestId);
    if (!owned.includes(consentId)) throw consentNotFound(consentId);
    // The bank's own revocation path, on the customer's behalf: one transaction, event and every token.
    await revokeConsent(em, consentId, { by: 'bank', bankHandle: customer.bankHandle, revokedBy: 'customer' });
    this.logger.info(
      { consent: consentId, bank: customer.bankHandle, request_id: requestId },
      'consent revoked by the customer',
    );
    return { consentId, status: ConsentStatus.REVOKED, token: token! };
  }

  /** Ids of the live consents whose consented accounts include one of the customer's accounts at the bank, whatever their status. */
  private async consentIdsOf(em: EntityManager, customer: ConsentsCustomer, requestId?: string): Promise<string[]> {
    const ibans = await this.accounts.ibansOf(customer.bankHandle, customer.bankCustomerRef, requestId);
    if (ibans.length === 0) return [];
    const rows = await em
      .fork()
      .find(
        ConsentAccountEntity,
        { bankHandle: customer.bankHandle, livemode: true, iban: { $in: ibans } },
        { fields: ['consentId'] },
      );
    return [...new Set(rows.map((row) => row.consentId))];
  }

  private async authorised(
    em: EntityManager,
    customer: ConsentsCustomer,
    requestId?: string,
  ): Promise<CustomerConsent[]> {
    const ids = await this.consentIdsOf(em, customer, requestId);
    if (ids.length === 0) return [];
    const fork = em.fork();
    const now = new Date();
    const consents = (
      await fork.find(
        ConsentEntity,
        { id: { $in: ids }, status: 'AUTHORISED', bankHandle: customer.bankHandle, livemode: true },
        { orderBy: { authorisedAt: 'desc', id: 'asc' } },
      )
    ).filter((consent) => effectiveConsentStatus(consent, now) === 'AUTHORISED');
    const tpps = await fork.find(TppEntity, { id: { $in: [...new Set(consents.map((consent) => consent.tppId))] } });
    const names = new Map(tpps.map((tpp) => [tpp.id, tpp.name]));
    return Promise.all(
      consents.map(async (consent) => {
        const terms = consent.kind === 'vrp' ? await loadTerms(fork, consent.id) : null;
        return {
          id: consent.id,
          tppName: names.get(consent.tppId) ?? 'A third-party provider',
          kind: consent.kind,
          status: ConsentStatus.AUTHORISED,
          scopes: [...consent.scopes],
          authorisedAt: consent.authorisedAt,
          expiresAt: consent.expiresAt,
          vrp: terms ? toVrpTerms(terms) : null,
        };
      }),
    );
  }
}
