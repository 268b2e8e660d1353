import { clientKeyOf, GatewayError, hmacSha256Hex, type Logger, type World } from '@gateway/kernel';
import type { ServiceClient } from './service-client';

const TAKE = `mutation TakeOtpAttempt($bankHandle: String!, $customerRef: String!, $guess: String!, $client: String!, $settle: [OtpSettlementInput!]) {
  takeOtpAttempt(bankHandle: $bankHandle, customerRef: $customerRef, guess: $guess, client: $client, settle: $settle) { attemptId retryAfterSeconds }
}`;
const SETTLE = `mutation SettleOtpAttempts($settlements: [OtpSettlementInput!]!) { settleOtpAttempts(settlements: $settlements) }`;

/** How long a give-back waits for a take to ride on before it is sent in a batch of its own. */
const GIVE_BACK_WITHIN_MS = 50;
/** At most this many give-backs travel in one call (the registry's own cap is higher). */
const GIVE_BACK_BATCH = 200;

interface Settlement {
  bankHandle: string;
  customerRef: string;
  attemptId: string;
}

/** The customer whose OTP is checked: their bank and bank_customer_ref, as the registry gave them. */
export interface OtpCustomer {
  bankHandle: string;
  bankCustomerRef: string;
  /**
   * The world of what the OTP confirms. Test-mode checks count apart from live ones: wrong OTPs
   * tried in test mode (a shared test payer, a real customer's alias) never lock anyone out live.
   */
  world: World;
  /**
   * The address the OTP came from (the principal's ip; null when unknown). Refused OTPs count per
   * client first: someone guessing from one address locks out that address, not the customer.
   */
  client: string | null;
}

/** The registry's key of a customer's checks: the test world's under a prefix of its own. */
const guardKey = (customer: OtpCustomer) => ({
  bankHandle: customer.bankHandle,
  customerRef: customer.world === 'test' ? `test:${customer.bankCustomerRef}` : customer.bankCustomerRef,
});

/**
 * The one way a customer's OTP is checked (checkout, consent, SCA, mandate confirmation): the
 * identity registry takes the check first and refuses it with RATE_LIMITED (Retry-After) once the
 * customer's refused OTPs reached its limit, whichever session, consent or mandate they were for;
 * then `verify` asks the customer's bank. A check the bank accepted, or never judged (a core
 * timeout), is given back; a refused one (OTP_INVALID) keeps counting. Errors of `verify` pass
 * through unchanged.
 */
export class OtpGuard {
  private pending: Settlement[] = [];
  private flushTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly call: ServiceClient,
    /** Keys the guess's HMAC: the registry can tell two guesses apart, never read one. */
    private readonly platformSecret: string,
    private readonly logger: Logger,
  ) {}

  async check(customer: OtpCustomer, otp: string, verify: () => Promise<unknown>, requestId?: string): Promise<void> {
    const key = guardKey(customer);
    const guess = hmacSha256Hex(this.platformSecret, `otp:${key.bankHandle}:${key.customerRef}:${otp}`);
    const client = clientKeyOf(customer.client);
    const settle = this.drain();
    const { takeOtpAttempt: taken } = await this.call<{
      takeOtpAttempt: { attemptId: string | null; retryAfterSeconds: number | null };
    }>(TAKE, { ...key, guess, client, settle }, requestId).catch((error: unknown) => {
      // Not taken, perhaps not given back either: they wait for the next call.
      this.queue(settle);
      throw error;
    });
    if (!taken.attemptId) {
      const seconds = taken.retryAfterSeconds ?? 60;
      throw new GatewayError(
        'RATE_LIMITED',
        `too many refused one-time passwords for this customer; try again in ${seconds} s`,
        undefined,
        seconds,
      );
    }
    try {
      await verify();
    } catch (error) {
      if (!(error instanceof GatewayError && error.code === 'OTP_INVALID'))
        this.giveBack(customer, taken.attemptId, requestId);
      throw error;
    }
    this.giveBack(customer, taken.attemptId, requestId);
  }

  /**
   * An OTP judged without the bank (it is not the one that already authorised this session or
   * consent): counted as a refused guess, as the bank would have, so a stored authorisation can
   * never be used to test OTPs. A customer already at the limit gets RATE_LIMITED.
   */
  async countRefused(customer: OtpCustomer, otp: string, requestId?: string): Promise<void> {
    try {
      await this.check(customer, otp, () => Promise.reject(new GatewayError('OTP_INVALID')), requestId);
    } catch (error) {
      if (!(error instanceof GatewayError && error.code === 'OTP_INVALID')) throw error;
    }
  }

  /**
   * Not awaited: the customer's answer does not wait for it. Queued to ride on the next take, or
   * sent in a batch soon; a check never given back (a crash meanwhile) counts as refused for the
   * window, no more.
   */
  private giveBack(customer: OtpCustomer, attemptId: string, requestId?: string): void {
    this.queue([{ ...guardKey(customer), attemptId }], requestId);
  }

  private queue(settlements: Settlement[], requestId?: string): void {
    this.pending.push(...settlements);
    this.schedule(requestId);
  }

  /** A batch of its own within GIVE_BACK_WITHIN_MS, unless a take carries the pending ones first. */
  private schedule(requestId?: string): void {
    if (this.flushTimer || this.pending.length === 0) return;
    this.flushTimer = setTimeout(() => this.flush(requestId), GIVE_BACK_WITHIN_MS);
    this.flushTimer.unref();
  }

  private drain(): Settlement[] {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const drained = this.pending.slice(0, GIVE_BACK_BATCH);
    this.pending = this.pending.slice(GIVE_BACK_BATCH);
    this.schedule();
    return drained;
  }

  private flush(requestId?: string): void {
    const settlements = this.drain();
    if (settlements.length === 0) return;
    this.call(SETTLE, { settlements }, requestId).catch((error: unknown) =>
      this.logger.warn(
        { err: error, attempts: settlements.length },
        'OTP checks not given back; they count until the window passes',
      ),
    );
  }
}
