import { clientKeyOf, GatewayError, hmacSha256Hex, type Logger, type World } from '@gateway/kernel';
import type { ServiceClient } from './service-client';

const TAKE = `mutation TakeOtpAttempt($bankHandle: String!, $customerRef: String!, $guess: String!, $client: String!) {
  takeOtpAttempt(bankHandle: $bankHandle, customerRef: $customerRef, guess: $guess, client: $client) { attemptId retryAfterSeconds }
}`;
const SETTLE = `mutation SettleOtpAttempt($bankHandle: String!, $customerRef: String!, $attemptId: ID!) {
  settleOtpAttempt(bankHandle: $bankHandle, customerRef: $customerRef, attemptId: $attemptId)
}`;

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
    const { takeOtpAttempt: taken } = await this.call<{ takeOtpAttempt: { attemptId: string | null; retryAfterSeconds: number | null } }>(
      TAKE,
      { ...key, guess, client },
      requestId,
    );
    if (!taken.attemptId) {
      const seconds = taken.retryAfterSeconds ?? 60;
      throw new GatewayError('RATE_LIMITED', `too many refused one-time passwords for this customer; try again in ${seconds} s`, undefined, seconds);
    }
    try {
      await verify();
    } catch (error) {
      if (!(error instanceof GatewayError && error.code === 'OTP_INVALID')) this.giveBack(customer, taken.attemptId, requestId);
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

  /** Not awaited: the customer's answer does not wait for it; a check never given back counts as refused for the window, no more. */
  private giveBack(customer: OtpCustomer, attemptId: string, requestId?: string): void {
    this.call(SETTLE, { ...guardKey(customer), attemptId }, requestId).catch((error: unknown) =>
      this.logger.warn({ err: error, attempt: attemptId }, 'OTP check not given back; it counts until the window passes'),
    );
  }
}
