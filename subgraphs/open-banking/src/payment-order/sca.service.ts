import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError, hmacSha256Hex, safeEqual, worldOf, type Logger } from '@gateway/kernel';
import type { BankCorePool } from '@gateway/bank-core-client';
import type { Directory, OtpGuard } from '@gateway/federation';
import { TppEntity } from '../tpp/tpp.entity';
import { PaymentOrderEntity } from './payment-order.entity';
import {
  countScaOtpFailure,
  endScaCheck,
  loadPaymentOrder,
  movePaymentOrder,
  scaExpiryDue,
  startScaCheck,
} from './payment-order.moves';
import { paymentOrderNotFound } from './payment-order.service';
import { assertTppActive } from '../tpp/tpp-participation';

/** Wrong one-time passwords allowed at the SCA page; the third fails the order. */
export const MAX_SCA_OTP_FAILURES = 3;

export interface ScaSettings {
  /** A PENDING_SCA order not authorised within this time FAILS (failure_code SCA_EXPIRED). */
  scaTtlMs: number;
  /** Keys the HMAC of the OTP that passed SCA. */
  platformSecret: string;
  /**
   * How long an OTP check that arrived before the SCA deadline keeps the order from expiring when
   * its process never says how it ended (it died). Longer than any authorisation can take: the
   * bank's OTP check (open-banking's core budget, 9 s) and the registry's calls, under the
   * router's 15 s per subgraph call. Default DEFAULT_SCA_AUTHORISATION_GRACE_MS.
   */
  authorisationGraceMs?: number;
}

export const DEFAULT_SCA_TTL_MS = 15 * 60_000;
export const DEFAULT_SCA_AUTHORISATION_GRACE_MS = 60_000;
/**
 * The expiry waits this long past the deadline: an authorisation that arrived just before it has
 * time to record its OTP check (one statement) before an expiry could look.
 */
export const SCA_EXPIRY_MARGIN_MS = 1_000;

/** What the SCA page shows: public, the unguessable po_ id is the capability. */
export interface ScaView {
  order: PaymentOrderEntity;
  tppName: string;
  expiresAt: Date;
  otpAttemptsLeft: number;
}

/**
 * The customer's side of a payment order above the exemption limit (spec "Open Banking (TPP)"
 * rule 5): the SCA page's view, and the authorisation with the OTP verified by the payer's own
 * bank core. Accepted: PENDING_SCA -> PROCESSING with movement.requested (the engine executes
 * it as any order). Three wrong OTPs, or the SCA time running out, FAIL the order.
 */
export class ScaService {
  constructor(
    readonly settings: ScaSettings,
    private readonly directory: Directory,
    private readonly cores: BankCorePool,
    private readonly otpGuard: OtpGuard,
    private readonly logger: Logger,
  ) {}

  async view(em: EntityManager, id: string): Promise<ScaView> {
    const order = await loadPaymentOrder(em, id);
    if (!order) throw paymentOrderNotFound(id);
    const tpp = await em.findOne(TppEntity, { id: order.tppId });
    return {
      order,
      tppName: tpp?.name ?? 'Third-party provider',
      expiresAt: this.expiresAt(order),
      otpAttemptsLeft: Math.max(0, MAX_SCA_OTP_FAILURES - order.scaOtpFailures),
    };
  }

  /**
   * The SCA deadline is when the customer's OTP arrives, not when the payer's bank answers: an OTP
   * that arrived in time is recorded as a check under way before the bank is asked (the expiry
   * waits for it, scaExpiryDue), so a slow bank or a slow machine never fails a payment the
   * customer authorised in time. Concurrent authorisations are all checked; the first to pass
   * makes the one sca_passed move.
   */
  async authorize(
    em: EntityManager,
    id: string,
    otp: string,
    client: string | null,
    requestId?: string,
  ): Promise<PaymentOrderEntity> {
    if (typeof otp !== 'string' || !/^\S{1,32}$/.test(otp))
      throw new GatewayError('VALIDATION_ERROR', 'otp: 1-32 characters');
    const arrivedAt = new Date();
    const order = await loadPaymentOrder(em, id);
    if (!order) throw paymentOrderNotFound(id);
    const authorisation = hmacSha256Hex(this.settings.platformSecret, `sca:${id}:${otp}`);
    // The same authorisation sent again (its answer lost): where the order stands, not a refusal.
    if (
      order.status !== 'PENDING_SCA' &&
      order.scaAuthorisationHash &&
      safeEqual(order.scaAuthorisationHash, authorisation)
    )
      return order;
    if (order.status !== 'PENDING_SCA') throw notPending(order);
    // New work (nothing has moved yet): a suspended TPP or a suspended payee bank refuses it; the payer's bank, below.
    await assertTppActive(em, order.tppId);
    await this.directory.bank({ handle: order.creditorBank }, requestId);
    if (!(await startScaCheck(em.fork(), id, arrivedAt, this.settings.scaTtlMs))) {
      if (this.expiresAt(order).getTime() <= arrivedAt.getTime()) {
        // Too late: refused without asking the bank; expired on the spot unless an OTP that came in time is still being checked.
        await this.expire(em, order, arrivedAt);
        throw scaTimeOver(order, this.expiresAt(order));
      }
      // Moved since it was read (another authorisation, the third wrong OTP).
      const now = (await loadPaymentOrder(em.fork(), id)) ?? order;
      if (now.scaAuthorisationHash && safeEqual(now.scaAuthorisationHash, authorisation)) return now;
      throw notPending(now);
    }

    let passed = false;
    try {
      const payer = await this.directory.alias({ iban: order.debtorIban }, requestId, worldOf(order));
      const bank = await this.directory.bank({ handle: order.debtorBank }, requestId);
      try {
        const verify = () =>
          this.cores
            .for(bank, worldOf(order))
            .verifyCustomer({ customerRef: payer.bankCustomerRef, otp, ...(requestId ? { requestId } : {}) });
        await this.otpGuard.check(
          { bankHandle: order.debtorBank, bankCustomerRef: payer.bankCustomerRef, world: worldOf(order), client },
          otp,
          verify,
          requestId,
        );
      } catch (error) {
        if (error instanceof GatewayError && error.code === 'OTP_INVALID') throw await this.otpRefused(em, order);
        throw error; // CBS_TIMEOUT / CBS_ERROR: nothing counted, the order stays PENDING_SCA
      }
      passed = true;
    } finally {
      // Refused or unanswered: the check no longer holds the expiry back (passed: the move below ends PENDING_SCA).
      if (!passed) await this.checkEnded(em, id);
    }
    // No deadline here: the OTP arrived in time, and the expiry waited for this check.
    const moved = await em.fork().transactional((tx) =>
      movePaymentOrder(tx, order, 'sca_passed', new Date(), {
        requestId: requestId ?? order.requestId,
        scaAuthorisationHash: authorisation,
      }),
    );
    if (!moved) {
      // Another request moved it first: this same authorisation sent twice at once is told the outcome.
      const now = (await loadPaymentOrder(em.fork(), id)) ?? order;
      if (now.scaAuthorisationHash && safeEqual(now.scaAuthorisationHash, authorisation)) return now;
      throw notPending(now);
    }
    this.logger.info(
      { payment_order: id, tpp: order.tppId },
      'payment order authorised by the customer (SCA): executing',
    );
    return order;
  }

  /**
   * PENDING_SCA orders past their SCA time that nobody authorised in time (no OTP check that
   * arrived before the deadline still under way): FAILED with payment_order.failed, a batch per
   * transaction.
   */
  async expireDue(root: EntityManager, now = new Date(), batch = 100): Promise<number> {
    return root.fork().transactional(async (tx) => {
      const due = await tx.find(PaymentOrderEntity, this.expiryDue(now), {
        orderBy: { createdAt: 'asc' },
        limit: batch,
        lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE,
        disableIdentityMap: true,
      });
      let expired = 0;
      for (const order of due)
        if (
          await movePaymentOrder(tx, order, 'sca_expired', now, scaExpired(this.settings.scaTtlMs), this.expiryDue(now))
        )
          expired += 1;
      return expired;
    });
  }

  private expiresAt(order: PaymentOrderEntity): Date {
    return new Date(order.createdAt.getTime() + this.settings.scaTtlMs);
  }

  private expiryDue(now: Date) {
    return scaExpiryDue(
      now,
      this.settings.scaTtlMs,
      this.settings.authorisationGraceMs ?? DEFAULT_SCA_AUTHORISATION_GRACE_MS,
      SCA_EXPIRY_MARGIN_MS,
    );
  }

  /** sca_expired on the spot, if it is due (else the job's, later). */
  private async expire(em: EntityManager, order: PaymentOrderEntity, now: Date): Promise<void> {
    await em
      .fork()
      .transactional((tx) =>
        movePaymentOrder(tx, { ...order }, 'sca_expired', now, scaExpired(this.settings.scaTtlMs), this.expiryDue(now)),
      );
  }

  /** Best effort: a check never ended holds the expiry back for the authorisation grace, no longer. */
  private async checkEnded(em: EntityManager, id: string): Promise<void> {
    await endScaCheck(em.fork(), id).catch((error: unknown) =>
      this.logger.warn({ err: error, payment_order: id }, 'SCA check not ended; the expiry waits for the grace'),
    );
  }

  /** Counts a wrong OTP atomically; the third one FAILS the order (payment_order.failed). */
  private async otpRefused(em: EntityManager, order: PaymentOrderEntity): Promise<GatewayError> {
    const now = new Date();
    const left = await em.fork().transactional(async (tx) => {
      const failures = await countScaOtpFailure(tx, order.id, now);
      if (failures === null) return 0;
      if (failures >= MAX_SCA_OTP_FAILURES) {
        await movePaymentOrder(tx, { ...order, status: 'PENDING_SCA' } as PaymentOrderEntity, 'sca_failed', now, {
          failureCode: 'OTP_INVALID',
          failureDetail: `${MAX_SCA_OTP_FAILURES} wrong one-time passwords at the SCA page`,
        });
      }
      return Math.max(0, MAX_SCA_OTP_FAILURES - failures);
    });
    return new GatewayError(
      'OTP_INVALID',
      left > 0
        ? `the one-time password was refused; ${left} attempt${left === 1 ? '' : 's'} left`
        : 'the one-time password was refused; the payment order has failed',
    );
  }
}

const scaExpired = (ttlMs: number) => ({
  failureCode: 'SCA_EXPIRED',
  failureDetail: `the customer did not authorise the payment within ${Math.round(ttlMs / 60_000)} minutes`,
});

/** An OTP that arrived after the SCA deadline (the order FAILS with SCA_EXPIRED, on the spot or by the job). */
function scaTimeOver(order: PaymentOrderEntity, expiresAt: Date): GatewayError {
  return new GatewayError(
    'PAYMENT_ORDER_NOT_PENDING_SCA',
    `payment order ${order.id}: its SCA time ended at ${expiresAt.toISOString()}; it no longer awaits SCA`,
  );
}

/** SCA is possible only while PENDING_SCA (contract "Bad input and failure": 409 with a code). */
function notPending(order: PaymentOrderEntity): GatewayError {
  return new GatewayError(
    'PAYMENT_ORDER_NOT_PENDING_SCA',
    `payment order ${order.id} is ${order.status}: it no longer awaits SCA`,
  );
}
