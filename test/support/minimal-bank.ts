import { randomInt } from 'node:crypto';
import {
  startMinimalCore,
  type MinimalCore,
  type MinimalCoreFault,
  type MinimalCoreOptions,
} from '@gateway/bank-core-client/testing';
import { newSecret } from '@gateway/kernel';
import { lyIban, type SeededBank, type TestPlatform } from './platform';

export interface MinimalCustomer {
  alias: string;
  iban: string;
  customerRef: string;
  otp: string;
}

export interface MinimalBank extends SeededBank {
  core: MinimalCore;
  /** An account at the core with an OTP (in LYD unless told), enrolled in the identity registry. */
  customer(options?: { balance?: number; otp?: string; currency?: string }): Promise<MinimalCustomer>;
}

/**
 * A bank whose core was written from the spec alone (packages/bank-core-client/testing),
 * registered at the platform: what a bank integrating from the spec brings.
 */
export async function startMinimalBank(
  t: TestPlatform,
  options: Omit<MinimalCoreOptions, 'internalKey'> = {},
): Promise<MinimalBank> {
  const internalKey = newSecret('sik_');
  const core = await startMinimalCore({ internalKey, ...options });
  const bank = await t.seed.registerBank({ core_base_url: core.url, internal_key: internalKey });
  return {
    ...bank,
    core,
    async customer({ balance = 100_000, otp = String(randomInt(100_000, 999_999)), currency = 'LYD' } = {}) {
      const account = randomInt(1, 2 ** 40);
      const iban = lyIban(bank.institutionCode, account);
      const customerRef = `min-${account}`;
      core.openAccount(iban, { customerRef, otp, balance, currency });
      const { handle } = await t.seed.claimAlias(bank, { iban, bank_customer_ref: customerRef });
      return { alias: handle, iban, customerRef, otp };
    },
  };
}

/**
 * Faults that keep a movement's outcome from being established: `path` answered only with
 * redirects and HTML (booking nothing), and the statement of `iban` with 500, 60 times each (more
 * than the engine asks before it gives up).
 */
export const outcomeNeverKnown = (path: string, iban: string): MinimalCoreFault[] => [
  ...Array.from({ length: 60 }, () => ({
    path,
    kind: 'status' as const,
    status: 302,
    body: '<html>moved</html>',
  })),
  ...Array.from({ length: 60 }, () => ({
    path: `/accounts/${iban}/transactions`,
    kind: 'status' as const,
    status: 500,
  })),
];
