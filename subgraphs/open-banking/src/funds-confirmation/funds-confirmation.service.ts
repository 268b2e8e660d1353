import type { EntityManager } from '@mikro-orm/postgresql';
import type { BankCorePool } from '@gateway/bank-core-client';
import type { Directory } from '@gateway/federation';
import { GatewayError, invalid, newId, parseInput, worldOf, type Principal } from '@gateway/kernel';
import { ConsentAccountEntity } from '../account/consent-account.entity';
import { dataCallConsent } from '../account/data-call';
import type { TppCaller } from '../client-auth/client-scopes';
import type { ConsentEntity } from '../consent/consent.entity';
import { createConsent, loadConsent } from '../consent/consent.moves';
import { revokeConsent } from '../consent/consent.revocation';
import { assertS256Method, FUNDS_CONFIRMATION_SCOPE } from '../consent/consent.rules';
import { consentNotFound, type ConsentService } from '../consent/consent.service';
import type { ConfirmFundsInput, CreateFundsConfirmationConsentInput } from './funds-confirmation.input';
import { confirmFundsRules, createFundsConsentRules } from './funds-confirmation.rules';
import type { FundsConfirmation } from './funds-confirmation.type';

const DAY_MS = 86_400_000;

const isFundsConsent = (consent: ConsentEntity | null): consent is ConsentEntity =>
  consent?.kind === 'funds_confirmation';

/**
 * Confirmation of funds (issue 51, CBPII). A funds-confirmation consent is a consent of its own
 * kind (scope funds_confirmation, one named account): created here, then approved at the consent
 * page, exchanged at /ob/token and revoked by the same code as every consent. The answer is read
 * live from the account's core on every question and says only yes or no: the balance never
 * leaves this service, and nothing of the question is stored.
 */
export class FundsConfirmationService {
  constructor(
    private readonly consents: ConsentService,
    private readonly directory: Directory,
    private readonly cores: BankCorePool,
  ) {}

  get publicBaseUrl(): string {
    return this.consents.settings.publicBaseUrl;
  }

  async create(
    em: EntityManager,
    caller: TppCaller,
    input: CreateFundsConfirmationConsentInput,
    requestId?: string,
  ): Promise<ConsentEntity> {
    const raw = JSON.parse(JSON.stringify(input)) as Record<string, unknown>;
    assertS256Method(raw.codeChallengeMethod);
    const request = parseInput(createFundsConsentRules, raw);
    const { tpp, bank } = await this.consents.admit(
      em,
      caller,
      { ...request, scopes: [FUNDS_CONFIRMATION_SCOPE] },
      requestId,
    );
    const now = new Date();
    const expiresAt = new Date(Date.parse(request.expiry));
    const ahead = expiresAt.getTime() - now.getTime();
    if (ahead <= 0) throw invalid('expiry', 'must be in the future');
    if (ahead > bank.maxConsentExpiryDays * DAY_MS)
      throw invalid('expiry', `must be at most ${bank.maxConsentExpiryDays} days ahead at bank ${bank.handle}`);
    const account = request.account;
    return em.fork().transactional(async (tx) =>
      createConsent(
        tx,
        {
          id: newId('consent'),
          tppId: tpp.id,
          livemode: tpp.mode === 'live',
          bankHandle: bank.handle,
          scopes: [FUNDS_CONFIRMATION_SCOPE],
          kind: 'funds_confirmation',
          fundsAccountType: account.type,
          fundsAccountValue: account.type === 'iban' ? account.value.iban : account.value,
          redirectUri: request.redirectUri,
          state: request.state,
          codeChallenge: request.codeChallenge,
          codeChallengeMethod: 'S256',
          expiryDays: Math.ceil(ahead / DAY_MS),
          expiresAt,
        },
        now,
      ),
    );
  }

  /** A TPP's own funds-confirmation consent, or the one its access token is for; anything else CONSENT_NOT_FOUND. */
  async findForCaller(em: EntityManager, principal: Principal & { id: string }, id: string): Promise<ConsentEntity> {
    const consent = await this.consents.findForCaller(em, principal, id);
    if (!isFundsConsent(consent)) throw consentNotFound(id);
    return consent;
  }

  /** Revocation by the TPP: the consent machinery's, for a consent of this kind only. */
  async revoke(em: EntityManager, principal: Principal & { id: string }, id: string): Promise<ConsentEntity> {
    if (!isFundsConsent(await loadConsent(em, id))) throw consentNotFound(id);
    return revokeConsent(em, id, { by: 'tpp', principal });
  }

  /**
   * Does the consent's account hold `amount` now? The access token's consent must be AUTHORISED,
   * unexpired and grant funds_confirmation (an account-information token is SCOPE_INSUFFICIENT);
   * the amount is compared in minor units in the account's own currency only.
   */
  async confirm(
    em: EntityManager,
    principal: Principal,
    input: ConfirmFundsInput,
    requestId?: string,
  ): Promise<FundsConfirmation> {
    const consent = await dataCallConsent(em, principal, FUNDS_CONFIRMATION_SCOPE);
    const request = parseInput(confirmFundsRules, JSON.parse(JSON.stringify(input)));
    if (request.consentId !== consent.id)
      throw new GatewayError('FORBIDDEN', `consent_id: this access token is for consent ${consent.id}`);
    const account = await em.findOne(ConsentAccountEntity, { consentId: consent.id });
    if (!account) throw new GatewayError('UNAUTHORIZED', `consent ${consent.id} has no consented account`);
    const bank = await this.directory.bank({ handle: account.bankHandle }, requestId);
    const core = await this.cores.for(bank, worldOf(account)).getAccount(account.iban, requestId ? { requestId } : {});
    if (core.currency !== request.currency)
      throw new GatewayError(
        'CURRENCY_MISMATCH',
        `currency: the consented account is held in ${core.currency}, not ${request.currency}`,
      );
    return {
      fundsConfirmationId: newId('fundsConfirmation'),
      consentId: consent.id,
      reference: request.reference,
      fundsAvailable: core.balance >= request.amount,
      createdAt: new Date(),
    };
  }
}
