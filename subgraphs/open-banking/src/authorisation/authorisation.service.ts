import type { EntityManager } from '@mikro-orm/postgresql';
import type { BankCorePool } from '@gateway/bank-core-client';
import type { AliasRouting, Directory, OtpGuard } from '@gateway/federation';
import { bankReference } from '@gateway/federation';
import { GatewayError, hmacSha256Hex, parseInput, safeEqual, worldOf, type Logger } from '@gateway/kernel';
import { Credential } from '@gateway/vault';
import { recordConsentAccounts } from '../account/consent-accounts';
import type { ConsentEntity } from '../consent/consent.entity';
import { countConsentOtpFailure, loadConsent, moveConsent } from '../consent/consent.moves';
import { consentNotFound } from '../consent/consent.service';
import { ConsentStatus, effectiveConsentStatus } from '../consent/consent.type';
import { issueAuthorizationCode } from '../grant/authorization-code';
import { TppEntity } from '../tpp/tpp.entity';
import type { ApproveConsentInput } from './authorisation.input';
import { approveRules, MAX_OTP_FAILURES, type ApproveRequest } from './authorisation.rules';
import type { ConsentAuthorisation, ConsentDecision } from './authorisation.type';
import type { CustomerAccountsClient } from './customer-accounts';
import { assertPageToken, issuePageToken } from './page-token';
import { resolveCustomer, verifyCustomerOtp } from './customer-verification';
import { approvedRedirect, rejectedRedirect } from './redirect';
import { assertTppActive } from '../tpp/tpp-participation';
import { fundsAccountIban } from '../funds-confirmation/funds-account';
import { vrpPayerIban } from '../vrp/vrp-payer';
import { toVrpTerms } from '../vrp/vrp.type';
import { loadTerms } from '../vrp/vrp-terms';

const vrpTermsOf = async (em: EntityManager, consentId: string) => {
  const terms = await loadTerms(em, consentId);
  return terms ? toVrpTerms(terms) : null;
};

export interface AuthorisationSettings {
  /** The issuer: `iss` of every authorization response (RFC 9207), the public base without a trailing slash. */
  publicBaseUrl: string;
  /** Keys the approval's HMAC (approvalHash) and the consent page's token: comparable, never readable. */
  platformSecret: string;
}

/**
 * FAPI 2.0 (5.3.1.2) and the contract: a fapi2 TPP's authorization request is pushed (POST
 * /ob/par) and redeemed at the authorization endpoint before its consent page opens; the consent's
 * own URL alone does not, as nothing would then bind what the customer approves to the client's
 * authenticated request.
 */
const parRequired = (consentId: string) =>
  new GatewayError(
    'PAR_REQUIRED',
    `consent ${consentId} belongs to a fapi2 client: it pushes its authorization request (POST /ob/par) and sends the customer to /ob/auth?client_id=…&request_uri=…`,
  );

async function isFapi2(em: EntityManager, tppId: string): Promise<boolean> {
  const tpp = await em.findOne(TppEntity, { id: tppId }, { fields: ['securityProfile'], disableIdentityMap: true });
  return tpp?.securityProfile === 'fapi2';
}

/** How long after approving the same approval sent again is answered with a new code (a browser that lost the answer retries at once). */
export const APPROVAL_RETRY_WINDOW_MS = 10 * 60_000;

/**
 * The customer's side of a consent (the consent page): what the page shows, the approval
 * (customer found in the identity registry at the consent's bank, OTP verified by that bank's
 * core, then one transaction: AUTHORISED with the consented accounts, their acc_ ids and the
 * authorization code) and the rejection. Neither the OTP nor the code is ever logged.
 */
export class AuthorisationService {
  constructor(
    private readonly settings: AuthorisationSettings,
    private readonly directory: Directory,
    private readonly cores: BankCorePool,
    private readonly otpGuard: OtpGuard,
    private readonly accounts: CustomerAccountsClient,
    private readonly logger: Logger,
  ) {}

  async view(em: EntityManager, id: string): Promise<ConsentAuthorisation> {
    const consent = await loadConsent(em, id);
    if (!consent) throw consentNotFound(id);
    const tpp = await em.findOne(TppEntity, { id: consent.tppId });
    const status = effectiveConsentStatus(consent);
    if (status === 'AWAITING_AUTHORISATION' && tpp?.securityProfile === 'fapi2' && !consent.pushedAt)
      throw parRequired(consent.id);
    return {
      id: consent.id,
      status: ConsentStatus[status],
      tppName: tpp?.name ?? 'A third-party provider',
      bank: bankReference(consent.bankHandle),
      scopes: [...consent.scopes],
      expiresAt: consent.expiresAt,
      otpAttemptsLeft: status === 'AWAITING_AUTHORISATION' ? Math.max(0, MAX_OTP_FAILURES - consent.otpFailures) : 0,
      redirectUri: consent.redirectUri,
      redirectTo: status === 'REJECTED' ? rejectedRedirect(consent, this.settings.publicBaseUrl) : null,
      pageToken: status === 'AWAITING_AUTHORISATION' ? issuePageToken(this.settings.platformSecret, consent.id) : null,
      livemode: consent.livemode,
      vrp: consent.kind === 'vrp' ? await vrpTermsOf(em, consent.id) : null,
    };
  }

  async approve(
    em: EntityManager,
    consentId: string,
    input: ApproveConsentInput,
    client: string | null,
    requestId?: string,
  ): Promise<ConsentDecision> {
    const request = parseInput(approveRules, JSON.parse(JSON.stringify(input)));
    const found = await loadConsent(em, consentId);
    if (!found) throw consentNotFound(consentId);
    if (effectiveConsentStatus(found) === 'AUTHORISED') return this.approveAgain(em, found, request, client, requestId);
    const consent = await this.awaiting(em, consentId);
    await assertTppActive(em, consent.tppId);
    if (!consent.pushedAt && (await isFapi2(em, consent.tppId))) throw parRequired(consent.id);
    const customer = await this.resolveCustomer(request, consent, requestId);
    const approval = this.approvalHash(consent.id, customer, request.otp);
    const bank = await this.directory.bank({ handle: consent.bankHandle }, requestId);
    try {
      await verifyCustomerOtp(this.directory, this.cores, this.otpGuard, {
        bankHandle: consent.bankHandle,
        bankCustomerRef: customer.bankCustomerRef,
        world: worldOf(consent),
        client,
        otp: request.otp,
        requestId,
      });
    } catch (error) {
      if (error instanceof GatewayError && error.code === 'OTP_INVALID') throw await this.otpRefused(em, consent);
      throw error; // CBS_TIMEOUT / CBS_ERROR: nothing counted, nothing moved
    }

    const ibans = await this.accounts.ibansOf(consent.bankHandle, customer.bankCustomerRef, requestId);
    // The alias was ACTIVE a moment ago; released since, it no longer speaks for any account.
    if (ibans.length === 0)
      throw new GatewayError(
        'ALIAS_INACTIVE',
        `customer: no active account of this customer at bank ${consent.bankHandle}`,
      );

    // A funds-confirmation consent is for the one account the TPP named, if this customer holds it;
    // a VRP consent pays from the customer's account in its currency.
    const consented =
      consent.kind === 'funds_confirmation'
        ? [await fundsAccountIban(this.directory, consent, ibans, requestId)]
        : consent.kind === 'vrp'
          ? [await vrpPayerIban(em, this.cores, bank, consent, ibans, requestId)]
          : ibans;

    const now = new Date();
    const code = await em
      .fork()
      .transactional(async (tx) => {
        // Expired while the bank verified the OTP: refused below, after the rollback.
        if (consent.expiresAt.getTime() <= now.getTime()) return null;
        const rows = recordConsentAccounts(tx, consent, consented, now);
        const moved = await moveConsent(tx, consent, 'customer_approved', now, {
          accountIds: rows.map((row) => row.id),
          approvalHash: approval,
        });
        // Another decision won the race: throwing rolls back the rows created above.
        if (!moved) throw new LostRace();
        return issueAuthorizationCode(tx, consent, now);
      })
      .catch((error: unknown) => {
        if (error instanceof LostRace) return null;
        throw error;
      });
    if (code === null) {
      const now = (await loadConsent(em.fork(), consentId)) ?? consent;
      // This same approval sent twice at once: the one that lost the race is answered as a retry.
      if (effectiveConsentStatus(now) === 'AUTHORISED' && now.approvalHash && safeEqual(now.approvalHash, approval))
        return this.approveAgain(em, now, request, client, requestId);
      throw await this.refusal(em, now);
    }
    this.logger.info(
      { consent: consentId, bank: consent.bankHandle, accounts: consent.accountIds.length, request_id: requestId },
      'consent approved',
    );
    return {
      consentId,
      status: ConsentStatus.AUTHORISED,
      redirectTo: approvedRedirect(consent, code, this.settings.publicBaseUrl),
    };
  }

  /**
   * An approval for a consent already AUTHORISED. The same approval again (same customer, same
   * OTP, compared by HMAC), soon after, while the TPP has redeemed no code of this consent: a
   * browser that lost the answer retries, and gets a redirect with a new code (the code is
   * stored as a hash and cannot be shown again; redeeming one code revokes the others). Anything
   * else is 409 CONSENT_ALREADY_DECIDED, and an OTP that is not the approving one counts as a
   * refused guess for that customer, so the stored HMAC can never be used to test OTPs.
   */
  private async approveAgain(
    em: EntityManager,
    consent: ConsentEntity,
    request: ApproveRequest,
    client: string | null,
    requestId?: string,
  ): Promise<ConsentDecision> {
    const customer = await this.resolveCustomer(request, consent, requestId);
    const approval = this.approvalHash(consent.id, customer, request.otp);
    if (!consent.approvalHash || !safeEqual(consent.approvalHash, approval)) {
      await this.otpGuard.countRefused(
        { bankHandle: consent.bankHandle, bankCustomerRef: customer.bankCustomerRef, world: worldOf(consent), client },
        request.otp,
        requestId,
      );
      throw await this.refusal(em, consent);
    }
    const now = new Date();
    const redeemed =
      (await em
        .fork()
        .count(Credential, { kind: 'ob_authorization_code', ownerId: consent.id, usedAt: { $ne: null } })) > 0;
    const late = !consent.authorisedAt || now.getTime() - consent.authorisedAt.getTime() > APPROVAL_RETRY_WINDOW_MS;
    if (redeemed || late) throw await this.refusal(em, consent);
    const code = await em.fork().transactional((tx) => issueAuthorizationCode(tx, consent, now));
    this.logger.info(
      { consent: consent.id, request_id: requestId },
      'consent approval sent again: a new authorization code answered',
    );
    return {
      consentId: consent.id,
      status: ConsentStatus.AUTHORISED,
      redirectTo: approvedRedirect(consent, code, this.settings.publicBaseUrl),
    };
  }

  /** HMAC of who approved with which OTP: the customer's account at the bank, never the OTP in clear. */
  private approvalHash(consentId: string, customer: AliasRouting, otp: string): string {
    return hmacSha256Hex(
      this.settings.platformSecret,
      `approve:${consentId}:${customer.bankHandle}:${customer.bankCustomerRef}:${otp}`,
    );
  }

  /**
   * The customer refuses, from the consent page: with the token the page was opened with, never
   * by the consent id alone (401 UNAUTHORIZED). Sent again for a consent already REJECTED it
   * answers the same redirect (a browser that lost the answer learns the truth); any other
   * status is refused.
   */
  async reject(em: EntityManager, consentId: string, pageToken: string | null | undefined): Promise<ConsentDecision> {
    const consent = await loadConsent(em, consentId);
    if (!consent) throw consentNotFound(consentId);
    assertPageToken(this.settings.platformSecret, consentId, pageToken);
    if (consent.status !== 'REJECTED') {
      if (effectiveConsentStatus(consent) !== 'AWAITING_AUTHORISATION') throw await this.refusal(em, consent);
      const moved = await em.fork().transactional((tx) => moveConsent(tx, consent, 'customer_rejected', new Date()));
      if (!moved) return this.reject(em.fork(), consentId, pageToken);
      this.logger.info({ consent: consentId, bank: consent.bankHandle }, 'consent rejected by the customer');
    }
    return {
      consentId,
      status: ConsentStatus.REJECTED,
      redirectTo: rejectedRedirect(consent, this.settings.publicBaseUrl),
    };
  }

  /** The consent, if the customer may still decide on it; otherwise the refusal that says why. */
  private async awaiting(em: EntityManager, consentId: string): Promise<ConsentEntity> {
    const consent = await loadConsent(em, consentId);
    if (!consent) throw consentNotFound(consentId);
    if (effectiveConsentStatus(consent) !== 'AWAITING_AUTHORISATION') throw await this.refusal(em, consent);
    return consent;
  }

  /**
   * Why the customer can no longer decide: CONSENT_EXPIRED (an open consent found past
   * expires_at is expired on the spot, with consent.expired, as the job would), CONSENT_REVOKED,
   * or 409 CONSENT_ALREADY_DECIDED for one already AUTHORISED or REJECTED.
   */
  private async refusal(em: EntityManager, consent: ConsentEntity): Promise<GatewayError> {
    const status = effectiveConsentStatus(consent);
    if (status === 'EXPIRED') {
      if (consent.status !== 'EXPIRED')
        await em.fork().transactional((tx) => moveConsent(tx, { ...consent }, 'expiry_reached', new Date()));
      return new GatewayError('CONSENT_EXPIRED', `consent ${consent.id} expired at ${consent.expiresAt.toISOString()}`);
    }
    if (status === 'REVOKED') return new GatewayError('CONSENT_REVOKED', `consent ${consent.id} is revoked`);
    const decided = status === 'AUTHORISED' ? 'approved' : 'rejected';
    return new GatewayError('CONSENT_ALREADY_DECIDED', `consent ${consent.id} was already ${decided}`);
  }

  /** The approving customer, at the consent's bank (customer-verification.ts). */
  private resolveCustomer(request: ApproveRequest, consent: ConsentEntity, requestId?: string): Promise<AliasRouting> {
    return resolveCustomer(
      this.directory,
      request.customer,
      consent.bankHandle,
      worldOf(consent),
      requestId,
      ', the bank of this consent',
    );
  }

  /** Counts a wrong OTP atomically; the third one REJECTS the consent. */
  private async otpRefused(em: EntityManager, consent: ConsentEntity): Promise<GatewayError> {
    const now = new Date();
    const left = await em.fork().transactional(async (tx) => {
      const failures = await countConsentOtpFailure(tx, consent.id, now);
      if (failures === null) return null;
      if (failures >= MAX_OTP_FAILURES)
        await moveConsent(tx, { ...consent, status: 'AWAITING_AUTHORISATION' }, 'customer_rejected', now);
      return Math.max(0, MAX_OTP_FAILURES - failures);
    });
    // Decided (or expired) while the bank was asked: that is the answer now.
    if (left === null) return this.refusal(em, (await loadConsent(em.fork(), consent.id)) ?? consent);
    if (left === 0)
      this.logger.info(
        { consent: consent.id, bank: consent.bankHandle },
        `consent rejected after ${MAX_OTP_FAILURES} wrong one-time passwords`,
      );
    return new GatewayError(
      'OTP_INVALID',
      left > 0
        ? `the one-time password was refused; ${left} attempt${left === 1 ? '' : 's'} left`
        : 'the one-time password was refused; the consent has been rejected',
    );
  }
}

/** Thrown inside the approval transaction to roll it back when another decision won; never leaves the service. */
class LostRace extends Error {}
