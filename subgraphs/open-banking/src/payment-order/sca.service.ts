import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError, hmacSha256Hex, safeEqual, worldOf, type Logger } from '@gateway/kernel';
import type { BankCorePool } from '@gateway/bank-core-client';
import type { Directory, OtpGuard } from '@gateway/federation';
import { TppEntity } from '../tpp/tpp.entity';
import { PaymentOrderEntity } from './payment-order.entity';
import { countScaOtpFailure, loadPaymentOrder, movePaymentOrder } from './payment-order.moves';
import { paymentOrderNotFound } from './payment-order.service';

/** Wrong one-time passwords allowed at the SCA page; the third fails the order. */
export const MAX_SCA_OTP_FAILURES = 3;

export interface ScaSettings {
  /** A PENDING_SCA order not authorised within this time FAILS (failure_code SCA_EXPIRED). */
  scaTtlMs: number;
  /** Keys the HMAC of the OTP that passed SCA. */
  platformSecret: string;
}

export const DEFAULT_SCA_TTL_MS = 15 * 60_000;

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

  async authorize(em: EntityManager, id: string, otp: string, requestId?: string): Promise<PaymentOrderEntity> {
    if (typeof otp !== 'string' || !/^\S{1,32}$/.test(otp)) throw new GatewayError('VALIDATION_ERROR', 'otp: 1-32 characters');
    const order = await loadPaymentOrder(em, id);
    if (!order) throw paymentOrderNotFound(id);
    if (order.status === 'PENDING_SCA' && this.expiresAt(order).getTime() <= Date.now()) {
      await this.expire(em, order);
      throw notPending(order);
    }
    const authorisation = hmacSha256Hex(this.settings.platformSecret, `sca:${id}:${otp}`);
    // The same authorisation sent again (its answer lost): where the order stands, not a refusal.
    if (order.status !== 'PENDING_SCA' && order.scaAuthorisationHash && safeEqual(order.scaAuthorisationHash, authorisation)) return order;
    if (order.status !== 'PENDING_SCA') throw notPending(order);

    const payer = await this.directory.alias({ iban: order.debtorIban }, requestId, worldOf(order));
    const bank = await this.directory.bank({ handle: order.debtorBank }, requestId);
    try {
      const verify = () => this.cores.for(bank, worldOf(order)).verifyCustomer({ customerRef: payer.bankCustomerRef, otp, ...(requestId ? { requestId } : {}) });
      await this.otpGuard.check({ bankHandle: order.debtorBank, bankCustomerRef: payer.bankCustomerRef }, otp, verify, requestId);
    } catch (error) {
      if (error instanceof GatewayError && error.code === 'OTP_INVALID') throw await this.otpRefused(em, order);
      throw error; // CBS_TIMEOUT / CBS_ERROR: nothing counted, the order stays PENDING_SCA
    }
    const moved = await em
      .fork()
      .transactional((tx) => movePaymentOrder(tx, order, 'sca_passed', new Date(), { requestId: requestId ?? order.requestId, scaAuthorisationHash: authorisation }));
    if (!moved) {
      // Another request moved it first: this same authorisation sent twice at once is told the outcome.
      const now = (await loadPaymentOrder(em.fork(), id)) ?? order;
      if (now.scaAuthorisationHash && safeEqual(now.scaAuthorisationHash, authorisation)) return now;
      throw notPending(now);
    }
    this.logger.info({ payment_order: id, tpp: order.tppId }, 'payment order authorised by the customer (SCA): executing');
    return order;
  }

  /** PENDING_SCA orders past their SCA time: FAILED with payment_order.failed, a batch per transaction. */
  async expireDue(root: EntityManager, now = new Date(), batch = 100): Promise<number> {
    return root.fork().transactional(async (tx) => {
      const due = await tx.find(
        PaymentOrderEntity,
        { status: 'PENDING_SCA', createdAt: { $lte: new Date(now.getTime() - this.settings.scaTtlMs) } },
        { orderBy: { createdAt: 'asc' }, limit: batch, lockMode: LockMode.PESSIMISTIC_PARTIAL_WRITE, disableIdentityMap: true },
      );
      let expired = 0;
      for (const order of due) if (await movePaymentOrder(tx, order, 'sca_expired', now, scaExpired(this.settings.scaTtlMs))) expired += 1;
      return expired;
    });
  }

  private expiresAt(order: PaymentOrderEntity): Date {
    return new Date(order.createdAt.getTime() + this.settings.scaTtlMs);
  }

  private async expire(em: EntityManager, order: PaymentOrderEntity): Promise<void> {
    await em.fork().transactional((tx) => movePaymentOrder(tx, order, 'sca_expired', new Date(), scaExpired(this.settings.scaTtlMs)));
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
      left > 0 ? `the one-time password was refused; ${left} attempt${left === 1 ? '' : 's'} left` : 'the one-time password was refused; the payment order has failed',
    );
  }
}

const scaExpired = (ttlMs: number) => ({ failureCode: 'SCA_EXPIRED', failureDetail: `the customer did not authorise the payment within ${Math.round(ttlMs / 60_000)} minutes` });

/** SCA is possible only while PENDING_SCA (contract "Bad input and failure": 409 with a code). */
function notPending(order: PaymentOrderEntity): GatewayError {
  return new GatewayError('PAYMENT_ORDER_NOT_PENDING_SCA', `payment order ${order.id} is ${order.status}: it no longer awaits SCA`);
}
