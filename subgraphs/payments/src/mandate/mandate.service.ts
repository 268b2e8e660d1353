import type { EntityManager } from '@mikro-orm/postgresql';
import { OneStatement } from '@gateway/db';
import type { BankRouting, Directory } from '@gateway/federation';
import {
  formatMoney,
  GatewayError,
  hmacSha256Hex,
  invalid,
  newId,
  parseInput,
  requestHash,
  safeEqual,
  worldOf,
  type Currency,
  type Logger,
  type World,
} from '@gateway/kernel';
import type { AccountCurrencies } from '../account-currency/account-currency';
import { accountMovementStart, type PaymentEngine, type StartedMovement } from '../engine/engine';
import type { OtpRefusals, PayerOtp } from '../payer-otp/payer-otp';
import { idempotency } from '../idempotency/idempotency.service';
import { MerchantEntity } from '../merchant/merchant.entity';
import { merchantSettlementAccount } from '../merchant/settlement-account';
import { createdRange, keysetPage } from '../listing/keyset-page';
import { tooManyKeys, updateMetadataRules } from '../metadata/metadata.rules';
import { keysAfter, metadataContains } from '../metadata/metadata.sql';
import { MOVEMENT_STATUSES } from '../movement/movement.transitions';
import { MandateChargeEntity, MandateEntity } from './mandate.entity';
import {
  advanceMandateClock,
  countMandateOtpFailure,
  createChargeOnceIn,
  createMandate,
  loadCharge,
  loadMandate,
  lockActiveMandate,
  moveMandate,
  updateChargeMetadata,
  updateMandateMetadata,
} from './mandate.moves';
import {
  advanceClockRules,
  chargeListRules,
  chargeMandateRules,
  mandateListRules,
  confirmMandateRules,
  createMandateRules,
  revokeMandateRules,
  type ChargeMandateRequest,
  type CreateMandateRequest,
} from './mandate.rules';
import { publicChargeStatus } from './mandate.transitions';
import { dayOf, formatDate, nextChargeDate, parseDate, periodOf } from './mandate.schedule';

export interface MandateSettings {
  /** Base of confirm_url. */
  publicBaseUrl: string;
  /** Keys the confirmation's HMAC. */
  platformSecret: string;
}

/** The customer's acceptance as the confirmation request showed it. */
export interface AcceptanceEvidence {
  ip: string | null;
  userAgent: string | null;
}

/** One wording for an unknown id and another merchant's, so the two cannot be told apart. */
export const mandateNotFound = (id: string): GatewayError => new GatewayError('MANDATE_NOT_FOUND', `no mandate ${id}`);
export const chargeNotFound = (id: string): GatewayError =>
  new GatewayError('MANDATE_CHARGE_NOT_FOUND', `no mandate charge ${id}`);

/** A list's arguments: page, and the graph's filter input as given. */
export interface ListArgs {
  first?: number | null;
  after?: string | null;
  filter?: object | null;
}

const plain = (input: unknown): unknown => JSON.parse(JSON.stringify(input ?? {}));

/**
 * Recurring mandates (API-CONTRACT "Mandates"): created by the merchant with the customer
 * resolved now, confirmed by the customer with an OTP their bank checks, then charged by the
 * merchant once per interval period, each charge a movement the payment engine executes like a
 * session's (debit once, compensation, rail confirmation, recovery, the interbank obligation).
 */
export class MandateService {
  constructor(
    private readonly settings: MandateSettings,
    private readonly directory: Directory,
    private readonly payerOtp: PayerOtp,
    private readonly engine: PaymentEngine,
    private readonly logger: Logger,
    private readonly currencies: AccountCurrencies,
  ) {}

  /**
   * PENDING_CONFIRMATION, with the customer's alias resolved and their bank taking part; the
   * merchant needs a settlement_iban (where charges go). Both accounts are known now, so a
   * mandate in another currency than either is refused (422 CURRENCY_MISMATCH): it could never be
   * charged. With an Idempotency-Key the same request answers the same mandate.
   */
  async create(
    em: EntityManager,
    merchantId: string,
    input: unknown,
    idempotencyKey?: string | null,
    requestId?: string,
  ): Promise<MandateEntity> {
    const request = parseInput(createMandateRules, plain(input));
    const merchant = await em.findOne(MerchantEntity, { id: merchantId });
    if (!merchant) throw new GatewayError('INVALID_API_KEY', 'merchant not found');
    if (!merchant.settlementIban)
      throw new GatewayError(
        'VALIDATION_ERROR',
        'settlement_iban: the merchant has none; charges are paid into it (PATCH or register the merchant with one)',
      );
    if (idempotencyKey != null) {
      const claim = await idempotency.begin(
        em,
        merchantId,
        idempotencyKey,
        requestHash({ operation: 'createMandate', ...request }),
      );
      if (claim.kind === 'replay') return this.findOwn(em, merchantId, String(claim.response.mandateId));
    }
    try {
      const livemode = merchant.mode === 'live';
      const customer = await this.resolveCustomer(request, worldOf({ livemode }), requestId);
      // Where its charges are paid must take new work too (a suspended bank: BANK_NOT_PARTICIPATING).
      const payee = await merchantSettlementAccount(
        em,
        this.directory,
        merchantId,
        'charges are paid into it',
        requestId,
      );
      await this.assertCurrency(request.currency as Currency, livemode, customer, payee, requestId);
      return await em.fork().transactional(async (tx) => {
        const id = newId('mandate');
        const mandate = createMandate(
          tx,
          {
            id,
            merchantId,
            livemode,
            customerAlias: request.customerAlias,
            customerIban: customer.iban,
            customerBank: customer.bankHandle,
            customerRef: customer.bankCustomerRef,
            amount: BigInt(request.amount),
            currency: request.currency as Currency,
            interval: request.interval,
            description: request.description ?? null,
            startDate: request.startDate,
            metadata: request.metadata ?? {},
            confirmUrl: `${this.settings.publicBaseUrl}/mandates/${id}/confirm`,
          },
          new Date(),
        );
        if (idempotencyKey != null) await idempotency.complete(tx, merchantId, idempotencyKey, { mandateId: id });
        this.logger.info({ mandate: id, merchant: merchantId, customer_bank: customer.bankHandle }, 'mandate created');
        return mandate;
      });
    } catch (error) {
      if (idempotencyKey != null) await idempotency.release(em, merchantId, idempotencyKey);
      throw error;
    }
  }

  /** The merchant's own mandate (another's is MANDATE_NOT_FOUND, like an unknown one); any for an operator (null). */
  async findOwn(em: EntityManager, merchantId: string | null, id: string): Promise<MandateEntity> {
    const mandate = await loadMandate(em, id);
    if (!mandate || (merchantId !== null && mandate.merchantId !== merchantId)) throw mandateNotFound(id);
    return mandate;
  }

  /** A page of the merchant's mandates, newest first, filtered (listing/keyset-page.ts). */
  async list(
    em: EntityManager,
    merchantId: string,
    args: ListArgs,
  ): Promise<{ mandates: MandateEntity[]; hasMore: boolean }> {
    const request = parseInput(mandateListRules, listInput(args));
    const { status, metadata } = request;
    const { rows, hasMore } = await keysetPage(em, MandateEntity, {
      scope: { merchantId },
      fixed: createdRange<MandateEntity>(request),
      changing: [
        ...(status ? [{ status }] : []),
        ...(metadata ? [metadataContains(metadata.key, metadata.value)] : []),
      ],
      first: request.first,
      after: request.after,
    });
    return { mandates: rows, hasMore };
  }

  /** A mandate's charges, newest first, filtered. */
  async charges(
    em: EntityManager,
    mandate: MandateEntity,
    args: ListArgs,
  ): Promise<{ charges: MandateChargeEntity[]; hasMore: boolean }> {
    const request = parseInput(chargeListRules, listInput(args));
    const { status, reference, metadata } = request;
    const { rows, hasMore } = await keysetPage(em, MandateChargeEntity, {
      scope: { mandateId: mandate.id },
      fixed: [...createdRange<MandateChargeEntity>(request), ...(reference ? [{ reference }] : [])],
      changing: [
        // PROCESSING on the record is PROCESSING or SETTLEMENT_PENDING in the row.
        ...(status ? [{ status: { $in: MOVEMENT_STATUSES.filter((s) => publicChargeStatus(s) === status) } }] : []),
        ...(metadata ? [metadataContains(metadata.key, metadata.value)] : []),
      ],
      first: request.first,
      after: request.after,
    });
    return { charges: rows, hasMore };
  }

  /** Merges metadata into a mandate of the merchant's ("" removes a key); refused past 20 keys, nothing changed. */
  async updateMetadata(em: EntityManager, merchantId: string, id: string, metadata: unknown): Promise<MandateEntity> {
    const request = parseInput(updateMetadataRules, { metadata: plain(metadata ?? []) });
    if (!(await updateMandateMetadata(em, merchantId, id, request.metadata, new Date()))) {
      const mandate = await this.findOwn(em, merchantId, id);
      throw invalid('metadata', tooManyKeys(keysAfter(mandate.metadata, request.metadata)));
    }
    return this.findOwn(em, merchantId, id);
  }

  /** The same for a charge of the merchant's; `mandateId`, when given (the REST path), must be the charge's. */
  async updateChargeMetadata(
    em: EntityManager,
    merchantId: string,
    id: string,
    metadata: unknown,
    mandateId?: string | null,
  ): Promise<MandateChargeEntity> {
    const request = parseInput(updateMetadataRules, { metadata: plain(metadata ?? []) });
    const before = await this.ownChargeOr404(em, merchantId, id, mandateId);
    if (!(await updateChargeMetadata(em, merchantId, id, request.metadata, new Date())))
      throw invalid('metadata', tooManyKeys(keysAfter(before.metadata, request.metadata)));
    return this.ownChargeOr404(em, merchantId, id, mandateId);
  }

  /** What the confirmation page shows (public: the id is the capability); nothing secret. */
  async confirmationView(em: EntityManager, id: string): Promise<{ mandate: MandateEntity; merchantName: string }> {
    const mandate = await loadMandate(em, id);
    if (!mandate) throw mandateNotFound(id);
    const merchant = await em.findOne(MerchantEntity, { id: mandate.merchantId });
    return { mandate, merchantName: merchant?.name ?? 'Merchant' };
  }

  /**
   * The customer confirms with the OTP their bank checks: ACTIVE with the acceptance recorded
   * (time, IP address, user agent) and mandate.activated; three wrong OTPs FAIL it. The same
   * confirmation sent again once ACTIVE answers ACTIVE (a lost answer can be retried safely).
   */
  async confirm(
    em: EntityManager,
    id: string,
    input: unknown,
    evidence: AcceptanceEvidence,
    requestId?: string,
  ): Promise<MandateEntity> {
    const { otp } = parseInput(confirmMandateRules, plain(input));
    const mandate = await loadMandate(em, id);
    if (!mandate) throw mandateNotFound(id);
    const confirmation = hmacSha256Hex(this.settings.platformSecret, `mandate:${id}:${otp}`);
    if (mandate.status === 'ACTIVE' && mandate.confirmationHash && safeEqual(mandate.confirmationHash, confirmation))
      return mandate;
    if (mandate.status !== 'PENDING_CONFIRMATION') {
      throw new GatewayError(
        'MANDATE_NOT_PENDING_CONFIRMATION',
        `mandate ${id} is ${mandate.status}: only a mandate PENDING_CONFIRMATION can be confirmed`,
      );
    }
    const customer = {
      bankHandle: mandate.customerBank,
      bankCustomerRef: mandate.customerRef,
      world: worldOf(mandate),
      client: evidence.ip,
    };
    await this.payerOtp.verify(em, customer, otp, otpRefusals(mandate), requestId);
    const now = new Date();
    const moved = await em.fork().transactional((tx) =>
      moveMandate(tx, mandate, 'otp_accepted', now, {
        confirmationHash: confirmation,
        acceptedAt: now,
        acceptedIp: evidence.ip?.slice(0, 64) ?? null,
        acceptedUserAgent: evidence.userAgent?.slice(0, 512) ?? null,
      }),
    );
    if (!moved) return this.confirm(em, id, input, evidence, requestId); // moved meanwhile: answer what it is now
    this.logger.info({ mandate: id, merchant: mandate.merchantId }, 'mandate confirmed by the customer');
    return mandate;
  }

  /** The merchant cancels (pending or active): CANCELLED with mandate.cancelled; again is the same answer. */
  async cancel(em: EntityManager, merchantId: string | null, id: string): Promise<MandateEntity> {
    const mandate = await this.findOwn(em, merchantId, id);
    if (mandate.status === 'CANCELLED') return mandate;
    if (mandate.status === 'FAILED')
      throw new GatewayError('MANDATE_NOT_ACTIVE', `mandate ${id} has FAILED confirmation; there is nothing to cancel`);
    if (
      !(await em
        .fork()
        .transactional((tx) => moveMandate(tx, mandate, 'cancelled', new Date(), { revokedBy: 'merchant' })))
    )
      return this.cancel(em, merchantId, id);
    this.logger.info({ mandate: id }, 'mandate cancelled by the merchant');
    return mandate;
  }

  /** The customer's bank revokes it, for the customer or on its own account: CANCELLED with revoked_by. */
  async revoke(em: EntityManager, bankHandle: string, id: string, input: unknown): Promise<MandateEntity> {
    const { revokedBy } = parseInput(revokeMandateRules, plain(input));
    const mandate = await loadMandate(em, id);
    // Another bank's customer: as unknown (a bank learns nothing of other banks' mandates).
    if (!mandate || mandate.customerBank !== bankHandle) throw mandateNotFound(id);
    if (mandate.status === 'CANCELLED') return mandate;
    if (mandate.status === 'FAILED')
      throw new GatewayError('MANDATE_NOT_ACTIVE', `mandate ${id} has FAILED confirmation; there is nothing to revoke`);
    if (!(await em.fork().transactional((tx) => moveMandate(tx, mandate, 'revoked', new Date(), { revokedBy }))))
      return this.revoke(em, bankHandle, id, input);
    this.logger.info({ mandate: id, bank: bankHandle, revoked_by: revokedBy }, 'mandate revoked by the customer bank');
    return mandate;
  }

  /**
   * Charges an ACTIVE mandate for the current interval period: at most the mandate's amount, not
   * before start_date, one live charge per period (of two racing charges one wins). The charge and
   * its execution are written in one transaction, then the engine runs it (no OTP: the mandate is
   * the customer's authorisation); the answer waits a moment for the outcome, as checkout does.
   */
  async charge(
    em: EntityManager,
    merchantId: string,
    id: string,
    input: unknown,
    idempotencyKey?: string | null,
    requestId?: string,
  ): Promise<MandateChargeEntity> {
    const request = parseInput(chargeMandateRules, plain(input));
    if (idempotencyKey != null) {
      const claim = await idempotency.begin(
        em,
        merchantId,
        idempotencyKey,
        requestHash({ operation: 'chargeMandate', mandateId: id, ...request }),
      );
      if (claim.kind === 'replay') return this.ownCharge(em, merchantId, String(claim.response.chargeId));
    }
    let started: StartedMovement;
    try {
      started = await this.createCharge(em, merchantId, id, request, idempotencyKey ?? null, requestId);
    } catch (error) {
      if (idempotencyKey != null) await idempotency.release(em, merchantId, idempotencyKey);
      throw error;
    }
    // Failed or not, the charge's record is the answer (its status and failure_code say which).
    return (await this.engine.execute<MandateChargeEntity>(em, started)).movement;
  }

  /** Test mode only: moves the mandate's own clock forward (a Stripe-like test clock), e.g. to reach the next period. */
  async advanceClock(
    em: EntityManager,
    merchantId: string,
    mode: string | undefined,
    id: string,
    input: unknown,
  ): Promise<MandateEntity> {
    const { days } = parseInput(advanceClockRules, plain(input));
    const mandate = await this.findOwn(em, merchantId, id);
    // Test clocks move test objects only: a test key never sees a live mandate, and this says so twice.
    if (mode !== 'test' || mandate.livemode)
      throw new GatewayError('FORBIDDEN', 'test clocks are for test-mode keys (mk_test_…) only');
    await advanceMandateClock(em.fork(), id, days, new Date());
    this.logger.info({ mandate: id, days }, 'mandate test clock advanced');
    return (await loadMandate(em.fork(), mandate.id))!;
  }

  /** The mandate's "today": the real date, plus its test clock. */
  today(mandate: MandateEntity, now = new Date()): number {
    return dayOf(now) + mandate.clockOffsetDays;
  }

  /** next_charge_date: null once the mandate can no longer be charged. */
  async nextChargeDate(em: EntityManager, mandate: MandateEntity): Promise<string | null> {
    if (mandate.status === 'CANCELLED' || mandate.status === 'FAILED') return null;
    const start = parseDate(mandate.startDate)!;
    const today = this.today(mandate);
    const period = periodOf(start, mandate.interval, today);
    const charged =
      period !== null &&
      (await em.count(MandateChargeEntity, {
        mandateId: mandate.id,
        periodStart: formatDate(period.start),
        status: { $ne: 'FAILED' },
      })) > 0;
    return formatDate(nextChargeDate(start, mandate.interval, today, charged));
  }

  private async createCharge(
    em: EntityManager,
    merchantId: string,
    id: string,
    request: ChargeMandateRequest,
    idempotencyKey: string | null,
    requestId?: string,
  ): Promise<StartedMovement> {
    const mandate = await this.findOwn(em, merchantId, id);
    if (mandate.status !== 'ACTIVE')
      throw new GatewayError(
        'MANDATE_NOT_ACTIVE',
        `mandate ${id} is ${mandate.status}; only an ACTIVE mandate can be charged`,
      );
    if (BigInt(request.amount) > mandate.amount) {
      throw new GatewayError(
        'MANDATE_LIMIT_EXCEEDED',
        `amount: ${formatMoney(request.amount, mandate.currency)} is above the mandate's ${formatMoney(mandate.amount, mandate.currency)}`,
      );
    }
    const period = periodOf(parseDate(mandate.startDate)!, mandate.interval, this.today(mandate));
    if (!period) throw new GatewayError('MANDATE_NOT_STARTED', `mandate ${id} starts on ${mandate.startDate}`);
    // New work at both banks: a suspended one refuses the charge (422 BANK_NOT_PARTICIPATING) and
    // nothing is written, so the period stays chargeable once the bank is resumed.
    const creditor = await merchantSettlementAccount(
      em,
      this.directory,
      merchantId,
      'charges are paid into it',
      requestId,
    );
    const customerBank = await this.customerBank(mandate.customerBank, requestId);
    // The engine's pre-debit check, before anything is written: the period stays chargeable.
    await this.engine.assertCurrencies(
      {
        kind: 'mandate_charge',
        livemode: mandate.livemode,
        currency: mandate.currency,
        payer: { bank: customerBank, iban: mandate.customerIban, name: mandate.customerAlias },
        payee: { bank: creditor.bank, iban: creditor.iban, name: settlementAccountName(creditor.iban) },
      },
      requestId,
    );
    const chargeId = newId('charge');
    const now = new Date();
    const started = await em.fork().transactional(async (tx) => {
      if (!(await lockActiveMandate(tx, id)))
        throw new GatewayError('MANDATE_NOT_ACTIVE', `mandate ${id} is no longer ACTIVE`);
      // One statement: the charge, unless the period has one already, and with it its execution.
      const statement = new OneStatement(tx);
      const fields = {
        id: chargeId,
        mandateId: id,
        merchantId,
        livemode: mandate.livemode,
        amount: BigInt(request.amount),
        currency: mandate.currency,
        reference: request.reference,
        periodStart: formatDate(period.start),
        debtorBank: mandate.customerBank,
        debtorIban: mandate.customerIban,
        creditorBank: creditor.bank.handle,
        creditorIban: creditor.iban,
        settlementType: mandate.customerBank === creditor.bank.handle ? 'internal' : 'rail',
        description: mandate.description,
        metadata: request.metadata ?? {},
      };
      createChargeOnceIn(statement, fields, now);
      const charge = this.engine.startIn(
        statement,
        accountMovementStart('mandate_charge', fields, requestId),
        now,
        'charge',
      );
      if (!(await statement.run()).charge) {
        throw new GatewayError(
          'MANDATE_LIMIT_EXCEEDED',
          `mandate ${id} is already charged for the ${mandate.interval} period from ${formatDate(period.start)} (a charge FAILED with CBS_OUTCOME_UNKNOWN holds it until an operator has resolved it); next: ${formatDate(period.end)}`,
        );
      }
      if (idempotencyKey != null) await idempotency.complete(tx, merchantId, idempotencyKey, { chargeId });
      return charge;
    });
    this.logger.info(
      { mandate: id, charge: chargeId, period: formatDate(period.start), request_id: requestId },
      'mandate charge created: executing',
    );
    return started;
  }

  private async ownChargeOr404(
    em: EntityManager,
    merchantId: string,
    id: string,
    mandateId?: string | null,
  ): Promise<MandateChargeEntity> {
    const charge = await loadCharge(em, id);
    if (!charge || charge.merchantId !== merchantId || (mandateId != null && charge.mandateId !== mandateId))
      throw chargeNotFound(id);
    return charge;
  }

  private async ownCharge(em: EntityManager, merchantId: string, chargeId: string): Promise<MandateChargeEntity> {
    const charge = await loadCharge(em, chargeId);
    if (!charge || charge.merchantId !== merchantId)
      throw new GatewayError('INTERNAL_ERROR', 'the charge of this Idempotency-Key is gone');
    return charge;
  }

  private async resolveCustomer(request: CreateMandateRequest, world: World, requestId?: string) {
    const customer = await this.directory
      .alias({ alias: request.customerAlias }, requestId, world)
      .catch((error: unknown) => {
        if (error instanceof GatewayError && error.code === 'VALIDATION_ERROR')
          throw new GatewayError('VALIDATION_ERROR', `customer_alias: ${error.detail.replace(/^\w+: /, '')}`);
        throw error;
      });
    if (customer.status !== 'ACTIVE')
      throw new GatewayError('ALIAS_INACTIVE', `alias ${customer.handle} is deactivated`);
    return { ...customer, bank: await this.customerBank(customer.bankHandle, requestId) };
  }

  /** A mandate's currency against both accounts, asked at once; the payee's refusal first (the customer can change nothing). */
  private async assertCurrency(
    currency: Currency,
    livemode: boolean,
    customer: { iban: string; bank: BankRouting; handle: string },
    payee: { iban: string; bank: BankRouting },
    requestId?: string,
  ): Promise<void> {
    const priced = { what: 'mandate', currency };
    const refusals = await Promise.all([
      this.currencies.refusal(
        { bank: payee.bank, iban: payee.iban, livemode, role: 'payee', name: settlementAccountName(payee.iban) },
        priced,
        requestId,
      ),
      this.currencies.refusal(
        { bank: customer.bank, iban: customer.iban, livemode, role: 'payer', name: customer.handle },
        priced,
        requestId,
      ),
    ]);
    const refused = refusals.find((refusal) => refusal !== null);
    if (refused) throw refused;
  }

  /** The customer's bank, taking new work (ACTIVE): else BANK_NOT_PARTICIPATING. */
  private async customerBank(bankHandle: string, requestId?: string): Promise<BankRouting> {
    return this.directory.bank({ handle: bankHandle }, requestId).catch((error: unknown) => {
      if (error instanceof GatewayError && error.code === 'BANK_NOT_REGISTERED')
        throw new GatewayError('BANK_NOT_PARTICIPATING', `no participating bank ${bankHandle}`);
      throw error;
    });
  }
}

/** How a currency refusal names the merchant's account. */
const settlementAccountName = (iban: string): string => `${iban} (the merchant's settlement_iban)`;

/** A wrong OTP is counted on the mandate; the last one FAILS it. */
const otpRefusals = (mandate: MandateEntity): OtpRefusals => ({
  what: 'mandate',
  count: (tx, now) => countMandateOtpFailure(tx, mandate.id, now),
  fail: (tx, now) => moveMandate(tx, { ...mandate, status: 'PENDING_CONFIRMATION' }, 'otp_failed_too_often', now),
});

/** Page arguments and the filter's fields, flat, as the list rules take them. */
const listInput = (args: ListArgs): Record<string, unknown> => ({
  first: args.first,
  after: args.after,
  ...(plain(args.filter ?? {}) as Record<string, unknown>),
});
