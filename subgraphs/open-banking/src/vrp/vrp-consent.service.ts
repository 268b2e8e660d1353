import type { EntityManager } from '@mikro-orm/postgresql';
import type { BankCorePool } from '@gateway/bank-core-client';
import type { BankRouting, Directory } from '@gateway/federation';
import {
  ERROR_CODES,
  GatewayError,
  invalid,
  newId,
  parseInput,
  worldOf,
  type Currency,
  type Principal,
} from '@gateway/kernel';
import { ConsentAccountEntity } from '../account/consent-account.entity';
import { dataCallConsent } from '../account/data-call';
import type { TppCaller } from '../client-auth/client-scopes';
import type { ConsentEntity } from '../consent/consent.entity';
import { createConsent, loadConsent } from '../consent/consent.moves';
import { revokeConsent } from '../consent/consent.revocation';
import { assertS256Method, VRP_SCOPE } from '../consent/consent.rules';
import { consentNotFound, type ConsentService } from '../consent/consent.service';
import type { CreateVrpConsentInput } from './vrp.input';
import { createVrpConsentRules, vrpFundsRules } from './vrp.rules';
import type { VrpConsentTermsEntity } from './vrp-consent-terms.entity';
import { createTerms, loadTerms, readUsage, storedLimit, type PeriodUsage } from './vrp-terms';

const DAY_MS = 86_400_000;

/** A VRP consent with its terms and what its current periods used. */
export interface VrpConsentView {
  consent: ConsentEntity;
  terms: VrpConsentTermsEntity;
  usage: PeriodUsage[];
}

/**
 * VRP consents (issue 51): a consent of its own kind (scope vrp_payments) whose terms name the
 * payee, the currency and the control parameters. Created here, approved at the consent page
 * (the customer's account in the consent's currency becomes the payer account), exchanged at
 * /ob/token and revoked by the same code as every consent; its events are vrp_consent.*.
 */
export class VrpConsentService {
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
    input: CreateVrpConsentInput,
    requestId?: string,
  ): Promise<VrpConsentView> {
    const raw = JSON.parse(JSON.stringify(input)) as Record<string, unknown>;
    assertS256Method(raw.codeChallengeMethod);
    const request = parseInput(createVrpConsentRules, raw);
    const { tpp, bank } = await this.consents.admit(em, caller, { ...request, scopes: [VRP_SCOPE] }, requestId);
    const livemode = tpp.mode === 'live';
    const now = new Date();
    const latest = now.getTime() + bank.maxConsentExpiryDays * DAY_MS;
    const parameters = request.controlParameters;
    const validFrom = parameters.validFrom ? new Date(Date.parse(parameters.validFrom)) : now;
    const validTo = parameters.validTo ? new Date(Date.parse(parameters.validTo)) : null;
    if (validTo && validTo.getTime() <= now.getTime())
      throw invalid('control_parameters.valid_to', 'must be in the future');
    if (validTo && validTo.getTime() > latest)
      throw invalid(
        'control_parameters.valid_to',
        `must be at most ${bank.maxConsentExpiryDays} days ahead at bank ${bank.handle}`,
      );
    if (validFrom.getTime() >= latest)
      throw invalid(
        'control_parameters.valid_from',
        `must be within ${bank.maxConsentExpiryDays} days at bank ${bank.handle}`,
      );
    const maximum = BigInt(parameters.maximumIndividualAmount);
    const creditor = await this.creditorOf(request.creditor, livemode, requestId);
    const expiresAt = validTo ?? new Date(latest);
    const id = newId('consent');
    const consent = await em.fork().transactional(async (tx) => {
      const created = createConsent(
        tx,
        {
          id,
          tppId: tpp.id,
          livemode,
          bankHandle: bank.handle,
          scopes: [VRP_SCOPE],
          kind: 'vrp',
          redirectUri: request.redirectUri,
          state: request.state,
          codeChallenge: request.codeChallenge,
          codeChallengeMethod: 'S256',
          expiryDays: Math.ceil((expiresAt.getTime() - now.getTime()) / DAY_MS),
          expiresAt,
        },
        now,
      );
      // The terms reference the consent's row: the ORM knows no relation between them to order the inserts by.
      await tx.flush();
      createTerms(tx, {
        consentId: id,
        creditorType: request.creditor.type,
        creditorValue: request.creditor.type === 'iban' ? request.creditor.value.iban : request.creditor.value,
        creditorIban: creditor.iban,
        creditorBank: creditor.bank.handle,
        currency: request.currency as Currency,
        reference: request.reference,
        maximumIndividualAmount: maximum,
        periodicLimits: parameters.periodicLimits.map((limit) =>
          storedLimit({ ...limit, amount: BigInt(limit.amount) }),
        ),
        validFrom,
        validTo,
      });
      return created;
    });
    return this.view(em, consent);
  }

  /** A TPP's own VRP consent, or the one its access token is for; anything else CONSENT_NOT_FOUND. */
  async findForCaller(em: EntityManager, principal: Principal & { id: string }, id: string): Promise<VrpConsentView> {
    const consent = await this.consents.findForCaller(em, principal, id);
    if (consent.kind !== 'vrp') throw consentNotFound(id);
    return this.view(em, consent);
  }

  /** Revocation by the TPP: the consent machinery's, for a consent of this kind only. */
  async revoke(em: EntityManager, principal: Principal & { id: string }, id: string): Promise<VrpConsentView> {
    if ((await loadConsent(em, id))?.kind !== 'vrp') throw consentNotFound(id);
    return this.view(em, await revokeConsent(em, id, { by: 'tpp', principal }));
  }

  /**
   * Does the payer account of the access token's VRP consent hold `amount` now, in the consent's
   * currency? Read live from its core; yes or no, never the balance.
   */
  async confirmFunds(
    em: EntityManager,
    principal: Principal,
    consentId: string,
    input: { amount: number },
    requestId?: string,
  ): Promise<{ consentId: string; fundsAvailable: boolean; createdAt: Date }> {
    const consent = await this.vrpConsentOfToken(em, principal, consentId);
    const { amount } = parseInput(vrpFundsRules, JSON.parse(JSON.stringify(input)));
    const account = await em.findOne(ConsentAccountEntity, { consentId: consent.id });
    if (!account) throw new GatewayError('UNAUTHORIZED', `consent ${consent.id} has no payer account`);
    const bank = await this.directory.bank({ handle: account.bankHandle }, requestId);
    const core = await this.cores.for(bank, worldOf(account)).getAccount(account.iban, requestId ? { requestId } : {});
    return { consentId: consent.id, fundsAvailable: core.balance >= amount, createdAt: new Date() };
  }

  /** The access token's consent, AUTHORISED and of kind vrp, and the one the path or body names. */
  async vrpConsentOfToken(em: EntityManager, principal: Principal, consentId: string): Promise<ConsentEntity> {
    const consent = await dataCallConsent(em, principal, VRP_SCOPE);
    if (consent.kind !== 'vrp')
      throw new GatewayError('SCOPE_INSUFFICIENT', `consent ${consent.id} is not a VRP consent`);
    if (consentId !== consent.id)
      throw new GatewayError('FORBIDDEN', `consent_id: this access token is for consent ${consent.id}`);
    return consent;
  }

  async view(em: EntityManager, consent: ConsentEntity): Promise<VrpConsentView> {
    const terms = await loadTerms(em, consent.id);
    if (!terms) throw consentNotFound(consent.id);
    const { usage } = await readUsage(em, terms, new Date());
    return { consent, terms, usage };
  }

  /** The payee's IBAN and bank: an IBAN routed by its institution code, an alias by the registry, in the consent's world. */
  private async creditorOf(
    creditor: { type: 'iban'; value: { iban: string; institutionCode: string } } | { type: 'alias'; value: string },
    livemode: boolean,
    requestId?: string,
  ): Promise<{ iban: string; bank: BankRouting }> {
    if (creditor.type === 'iban') {
      const code = creditor.value.institutionCode;
      const bank = await this.directory.bank({ institutionCode: code }, requestId).catch((error: unknown) => {
        if (error instanceof GatewayError && error.code === 'BANK_NOT_REGISTERED')
          throw new GatewayError(
            'BANK_NOT_PARTICIPATING',
            `creditor.value: no participating bank with institution code ${code}`,
          );
        throw error;
      });
      return { iban: creditor.value.iban, bank };
    }
    const routing = await this.directory
      .alias({ alias: creditor.value }, requestId, livemode ? 'live' : 'test')
      .catch((error: unknown) => {
        if (error instanceof GatewayError && ERROR_CODES[error.code].status < 500)
          throw invalid('creditor.value', error.message);
        throw error;
      });
    if (routing.status !== 'ACTIVE')
      throw new GatewayError('ALIAS_INACTIVE', `creditor.value: alias ${creditor.value} is deactivated`);
    return { iban: routing.iban, bank: await this.directory.bank({ handle: routing.bankHandle }, requestId) };
  }
}
