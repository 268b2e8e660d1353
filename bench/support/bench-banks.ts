import { startBanksProcess } from '../../scripts/launcher/sandbox-banks';
import { BANK_CORES_APPLICATION, withApplicationName } from './cpu';
import { ok } from './http';
import type { LaunchedPlatform } from './launcher';

/** What seeding needs of a platform: its public address and admin key (one process, split or cluster). */
export type PublicPlatform = Pick<LaunchedPlatform, 'restUrl' | 'adminKey'>;

export interface BenchBank {
  handle: string;
  institutionCode: string;
  url: string;
}

export interface BenchBanks {
  pid: number | undefined;
  banks: BenchBank[];
  /** The internal key the gateway sends bank `handle` (each bank has its own). */
  internalKeyOf(handle: string): string;
  stop(): Promise<void>;
}

export interface BenchCustomer {
  alias: string;
  iban: string;
  otp: string;
  customerRef: string;
}

/** Two sandbox bank cores (institution codes 901 and 902) in a process of their own (bench/support/sandbox-banks.ts). */
export async function startBenchBanks(databaseUrl: string, sharedKey: string): Promise<BenchBanks> {
  const suffix = String(Math.floor(Math.random() * 900) + 100);
  const cores = await startBanksProcess({
    PATH: process.env.PATH ?? '',
    // Named, so that a bench counts PostgreSQL's CPU for the sandbox ledgers apart from the platform's.
    DATABASE_URL: withApplicationName(databaseUrl, BANK_CORES_APPLICATION),
    INTERNAL_KEY: sharedKey,
    BANKS: `bencha${suffix}:901,benchb${suffix}:902`,
    LOG_LEVEL: 'error',
  });
  return {
    pid: cores.child.pid,
    banks: cores.ready.banks,
    internalKeyOf: (handle) => `${sharedKey}_${handle}`,
    stop: () => cores.stop(),
  };
}

/**
 * Registers each bench bank with the gateway (Open Banking on, every scope) and points its
 * sandbox at the gateway. Returns the bank keys by handle.
 */
export async function registerBenchBanks(platform: PublicPlatform, cores: BenchBanks): Promise<Record<string, string>> {
  const admin = { 'x-service-admin-key': platform.adminKey };
  const bankKeys: Record<string, string> = {};
  for (const bank of cores.banks) {
    const internal = { 'x-service-internal-key': cores.internalKeyOf(bank.handle) };
    const settlement = await ok(
      'POST',
      `${bank.url}/sandbox/accounts`,
      { customer_ref: `${bank.handle}-settlement`, holder_name: 'Settlement', currency: 'LYD' },
      internal,
    );
    const registered = await ok(
      'POST',
      `${platform.restUrl}/banks`,
      {
        bank_handle: bank.handle,
        display_name: `Bench ${bank.handle}`,
        country: 'LY',
        core_base_url: bank.url,
        settlement_account_iban: settlement.iban,
        contact_email: `ops@${bank.handle}.example`,
        institution_code: bank.institutionCode,
        internal_key: cores.internalKeyOf(bank.handle),
        ob_enabled: true,
        ob_scopes_supported: ['accounts:read', 'balances:read', 'transactions:read', 'payments:write'],
      },
      admin,
    );
    bankKeys[bank.handle] = registered.bank_key;
    await ok('PUT', `${bank.url}/sandbox/gateway`, { url: platform.restUrl, bank_key: registered.bank_key }, internal);
  }
  return bankKeys;
}

/** A funded customer at `bank` with an OTP, its alias claimed in the gateway's directory. */
export async function benchCustomer(
  platform: PublicPlatform,
  cores: BenchBanks,
  bankKey: string,
  bank: BenchBank,
  name: string,
  balance: number,
): Promise<BenchCustomer> {
  const otp = String(100_000 + Math.floor(Math.random() * 899_999));
  const customerRef = `${bank.handle}-${name}`;
  const account = await ok(
    'POST',
    `${bank.url}/sandbox/accounts`,
    { customer_ref: customerRef, holder_name: `Bench ${name}`, currency: 'LYD', balance, otp },
    { 'x-service-internal-key': cores.internalKeyOf(bank.handle) },
  );
  const alias = `${name}.${bank.handle}`;
  await ok(
    'POST',
    `${platform.restUrl}/v1/identity/claim`,
    { npt_handle: alias, iban: account.iban, customer_display_name: `Bench ${name}`, bank_customer_ref: customerRef },
    { 'x-service-bank-key': bankKey },
  );
  return { alias, iban: account.iban, otp, customerRef };
}
