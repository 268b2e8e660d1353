import type { EntityManager } from '@mikro-orm/postgresql';
import type { BankCorePool } from '@gateway/bank-core-client';
import {
  PayerCheck,
  type BankRouting,
  type CheckedPayer,
  type Directory,
  type OtpCheck,
  type OtpCustomer,
  type OtpGuard,
  type PayerLookup,
} from '@gateway/federation';
import { GatewayError, type World } from '@gateway/kernel';

/** Wrong OTPs after which what they authorize (a session, a mandate) fails (issue: three). */
export const MAX_OTP_FAILURES = 3;

/** Attempts a payer has left after `failures` wrong OTPs. */
export const otpAttemptsLeft = (failures: number): number => Math.max(0, MAX_OTP_FAILURES - failures);

/** The customer whose OTP is checked: at their own bank, in the world of what it authorizes, sent from a client address. */
export type OtpPayer = OtpCustomer;

/**
 * Where a wrong OTP is counted: on the object the payer authorizes, atomically. `count` answers
 * the failures so far (null: it is no longer waiting for an OTP); `fail` ends it at the last one.
 */
export interface OtpRefusals {
  what: 'session' | 'mandate';
  count(tx: EntityManager, now: Date): Promise<number | null>;
  fail(tx: EntityManager, now: Date): Promise<unknown>;
}

/**
 * A payer's OTP, as checkout and mandate confirmation check it: by the payer's own bank core,
 * under the OTP guard (one per-customer limit, whatever the OTP confirms); a wrong one is
 * counted on the object being authorized and the MAX_OTP_FAILURES-th fails it. Checkout's payer
 * is resolved and their check taken in one trip to the registry (`take`); a mandate's customer,
 * resolved when it was created, has their check taken alone (`verify`).
 */
export class PayerOtp {
  private readonly payers: PayerCheck;

  constructor(
    private readonly directory: Directory,
    private readonly cores: BankCorePool,
    private readonly otpGuard: OtpGuard,
  ) {
    this.payers = new PayerCheck(directory, otpGuard);
  }

  /**
   * A payer named by alias or IBAN: their routing, their bank's and an OTP check taken for them,
   * in one trip to the registry (PayerCheck). ALIAS_NOT_FOUND, ALIAS_INACTIVE, BANK_NOT_PARTICIPATING,
   * VALIDATION_ERROR; then `verifyChecked`, or the check's `release` when the payment stops before the bank.
   */
  take(
    lookup: PayerLookup,
    otp: string,
    world: World,
    client: string | null,
    requestId?: string,
  ): Promise<CheckedPayer> {
    return this.payers.take(lookup, otp, world, client, requestId);
  }

  /** Resolves when the core accepts the OTP; OTP_INVALID (attempts left said), RATE_LIMITED, CBS_TIMEOUT or CBS_ERROR otherwise. */
  async verify(
    em: EntityManager,
    payer: OtpPayer,
    otp: string,
    refusals: OtpRefusals,
    requestId?: string,
  ): Promise<void> {
    const bank = await this.directory.bank({ handle: payer.bankHandle }, requestId);
    const check = await this.otpGuard.take(payer, otp, requestId);
    await this.verifyUnder(em, check, bank, payer, otp, refusals, requestId);
  }

  /** `verify` for a payer checked with `take`: no further trip to the registry. */
  verifyChecked(
    em: EntityManager,
    checked: CheckedPayer,
    world: World,
    otp: string,
    refusals: OtpRefusals,
    requestId?: string,
  ): Promise<void> {
    return this.verifyUnder(em, checked.check, checked.bank, { ...checked.payer, world }, otp, refusals, requestId);
  }

  /** A wrong OTP known without asking the core (the claimer's own account with another OTP): counted by the guard alone. */
  countRefused(payer: OtpPayer, otp: string): Promise<void> {
    return this.otpGuard.countRefused(payer, otp);
  }

  private async verifyUnder(
    em: EntityManager,
    check: OtpCheck,
    bank: BankRouting,
    payer: { bankCustomerRef: string; world: World },
    otp: string,
    refusals: OtpRefusals,
    requestId?: string,
  ): Promise<void> {
    const verify = () =>
      this.cores
        .for(bank, payer.world)
        .verifyCustomer({ customerRef: payer.bankCustomerRef, otp, ...(requestId ? { requestId } : {}) });
    try {
      await check.verify(verify);
    } catch (error) {
      if (error instanceof GatewayError && error.code === 'OTP_INVALID') throw await refused(em, refusals);
      throw error; // CBS_TIMEOUT / CBS_ERROR / RATE_LIMITED: nothing counted, nothing moved
    }
  }
}

async function refused(em: EntityManager, refusals: OtpRefusals): Promise<GatewayError> {
  const now = new Date();
  const left = await em.fork().transactional(async (tx) => {
    const failures = await refusals.count(tx, now);
    if (failures === null) return 0;
    if (failures >= MAX_OTP_FAILURES) await refusals.fail(tx, now);
    return otpAttemptsLeft(failures);
  });
  return new GatewayError(
    'OTP_INVALID',
    left > 0
      ? `the one-time password was refused; ${left} attempt${left === 1 ? '' : 's'} left`
      : `the one-time password was refused; the ${refusals.what} has failed`,
  );
}
