import type { BankCorePool } from '@gateway/bank-core-client';
import type { AliasRouting, Directory, OtpGuard } from '@gateway/federation';
import { GatewayError, type World } from '@gateway/kernel';
import type { ApproveRequest } from './authorisation.rules';

/*
 * How a customer proves who they are on the platform's Open Banking pages: found in the identity
 * registry at one bank, by alias or IBAN, then their OTP verified by that bank's core through the
 * OtpGuard (wrong OTPs counted, rate limited). Shared by the consent page's approval and by the
 * customer's own consent list (customer-consents.service.ts), so both refuse alike.
 */

/**
 * The customer, by alias or IBAN, in the identity registry. It must be a customer of `bankHandle`:
 * an account elsewhere is ALIAS_NOT_FOUND, as the registry itself answers for handle@bank_handle
 * at the wrong bank (nothing of that customer exists at this bank). `about` ends that refusal's
 * detail (", the bank of this consent").
 */
export async function resolveCustomer(
  directory: Directory,
  customer: ApproveRequest['customer'],
  bankHandle: string,
  world: World,
  requestId?: string,
  about = '',
): Promise<AliasRouting> {
  const lookup = customer.type === 'alias' ? { alias: customer.value } : { iban: customer.value.iban };
  const found = await directory.alias(lookup, requestId, world).catch((error: unknown) => {
    if (error instanceof GatewayError && error.code === 'VALIDATION_ERROR')
      throw new GatewayError('VALIDATION_ERROR', `customer.value: ${error.detail.replace(/^\w+: /, '')}`);
    throw error;
  });
  if (found.bankHandle !== bankHandle) {
    throw new GatewayError(
      'ALIAS_NOT_FOUND',
      `customer: no ${customer.type === 'alias' ? 'alias' : 'account'} at bank ${bankHandle}${about}`,
    );
  }
  if (found.status !== 'ACTIVE') throw new GatewayError('ALIAS_INACTIVE', `alias ${found.handle} is deactivated`);
  return found;
}

/** Who asks the OTP to be checked: the customer found by resolveCustomer, in one world, from one client (IP). */
export interface OtpCheck {
  bankHandle: string;
  bankCustomerRef: string;
  world: World;
  client: string | null;
  otp: string;
  requestId?: string | undefined;
}

/**
 * The OTP verified by the bank's core through the guard: OTP_INVALID (counted) for a wrong one,
 * RATE_LIMITED past the guard's limits, CBS_TIMEOUT / CBS_ERROR when the core cannot tell (nothing
 * counted). The OTP is never logged.
 */
export async function verifyCustomerOtp(
  directory: Directory,
  cores: BankCorePool,
  otpGuard: OtpGuard,
  check: OtpCheck,
): Promise<void> {
  const { bankHandle, bankCustomerRef, world, client, otp, requestId } = check;
  const bank = await directory.bank({ handle: bankHandle }, requestId);
  const verify = () =>
    cores.for(bank, world).verifyCustomer({ customerRef: bankCustomerRef, otp, ...(requestId ? { requestId } : {}) });
  await otpGuard.check({ bankHandle, bankCustomerRef, world, client }, otp, verify, requestId);
}
