import { parseIban } from '@gateway/kernel';
import { composeLyIban } from '../iban';

/** The OTP the test bank accepts for every customer it has no other rule for (and for most test payers). */
export const TEST_OTP = '123456';

/** Balance (minor units) of an account the test bank opens on first use, in the currency asked. */
export const DEFAULT_TEST_BALANCE = 100_000_000;

export type TestPayerBehaviour =
  'success' | 'wrong-otp' | 'insufficient' | 'timeout' | 'unknown' | 'credit-refused' | 'late-confirm';

/**
 * A test payer, like Stripe's test cards: an alias `<name>@<bank_handle>` that resolves in test mode
 * at every bank to a fixed account of the built-in test bank, whose core answers in a documented way.
 */
export interface TestPayer {
  readonly name: TestPayerBehaviour;
  /** One line for the docs: what a payment from this payer does. */
  readonly outcome: string;
  /** The one OTP its bank accepts; null: every OTP is refused. */
  readonly otp: string | null;
  /** Opening balance, minor units (the account opens on first use, in the currency asked). */
  readonly balance: number;
  /** What the test bank's core does for this payer (see routes.ts). */
  readonly behaviour: TestPayerBehaviour;
  /** 15 digits: the account number of its IBAN at every bank (institution code varies). */
  readonly accountNumber: string;
}

const payer = (
  name: TestPayerBehaviour,
  index: number,
  outcome: string,
  otp: string | null = TEST_OTP,
  balance = DEFAULT_TEST_BALANCE,
): TestPayer =>
  Object.freeze({
    name,
    outcome,
    otp,
    balance,
    behaviour: name,
    accountNumber: `999999${String(index).padStart(9, '0')}`,
  });

/** The test payers, in the order the docs list them. */
export const TEST_PAYERS: readonly TestPayer[] = Object.freeze([
  payer('success', 1, 'Every payment succeeds (OTP 123456, balance 100,000,000 minor units).'),
  payer('wrong-otp', 2, 'Every OTP is refused: the customer never gets past verification (401 OTP_INVALID).', null),
  payer('insufficient', 3, 'Balance 0: every debit is refused with 422 INSUFFICIENT_FUNDS.', TEST_OTP, 0),
  payer(
    'timeout',
    4,
    "The first debit of a payment is booked but never answered; the gateway's retry finds it booked, so it is debited once.",
  ),
  payer(
    'unknown',
    5,
    'Every debit is booked, then answered 500: the gateway finds the booking in the statement, gives the money back and FAILS the payment (CBS_ERROR).',
  ),
  payer(
    'credit-refused',
    6,
    'The debit succeeds, the payee bank refuses the credit (422 ACCOUNT_CLOSED): the gateway reverses the debit.',
  ),
  payer(
    'late-confirm',
    7,
    "The payment succeeds, but the payee bank's credit-confirmed arrives late (15 s by default).",
  ),
]);

const byName = new Map(TEST_PAYERS.map((p) => [p.name, p]));
const byAccountNumber = new Map(TEST_PAYERS.map((p) => [p.accountNumber, p]));

/** The branch part of every test payer's IBAN (composeLyIban's default). */
const TEST_BRANCH = '001';
const BANK_HANDLE = /^[a-z][a-z0-9_-]{1,31}$/;

/** `success@oasis` → the payer `success` at the bank `oasis`; null for anything else. Case-insensitive, trimmed. */
export function parseTestPayerAlias(alias: string): { payer: TestPayer; bankHandle: string } | null {
  if (typeof alias !== 'string') return null;
  const text = alias.trim().toLowerCase();
  const at = text.lastIndexOf('@');
  if (at <= 0) return null;
  const found = byName.get(text.slice(0, at) as TestPayerBehaviour);
  const bankHandle = text.slice(at + 1);
  if (!found || !BANK_HANDLE.test(bankHandle)) return null;
  return { payer: found, bankHandle };
}

/** The fixed IBAN of a test payer at a bank (same institution code, same IBAN, every run). */
export const testPayerIban = (testPayer: TestPayer, institutionCode: string): string =>
  composeLyIban(institutionCode, testPayer.accountNumber, TEST_BRANCH);

/** The customer reference the test bank knows a test payer by. */
export const testPayerCustomerRef = (testPayer: TestPayer): string => `test-${testPayer.name}`;

/**
 * What a test payer's alias resolves to in test mode, shaped as an alias routing; null when the alias
 * is not a test payer's or names another bank than `bank`.
 */
export function testPayerRouting(
  alias: string,
  bank: { handle: string; institutionCode: string },
): {
  handle: string;
  iban: string;
  bankHandle: string;
  institutionCode: string;
  bankCustomerRef: string;
  status: 'ACTIVE';
} | null {
  const parsed = parseTestPayerAlias(alias);
  if (!parsed || parsed.bankHandle !== bank.handle.toLowerCase()) return null;
  return {
    handle: `${parsed.payer.name}@${parsed.bankHandle}`,
    iban: testPayerIban(parsed.payer, bank.institutionCode),
    bankHandle: bank.handle,
    institutionCode: bank.institutionCode,
    bankCustomerRef: testPayerCustomerRef(parsed.payer),
    status: 'ACTIVE',
  };
}

/** The test payer whose account this IBAN is (at any bank), or null. */
export function testPayerByIban(iban: string): TestPayer | null {
  const info = typeof iban === 'string' ? parseIban(iban) : null;
  if (!info || info.countryCode !== 'LY') return null;
  // LY + 2 check digits + 3 bank + 3 branch + 15 account digits.
  if (info.iban.slice(7, 10) !== TEST_BRANCH) return null;
  return byAccountNumber.get(info.iban.slice(10)) ?? null;
}

/** The test payer a customer reference names (`test-<name>`), or null. */
export function testPayerByCustomerRef(customerRef: string): TestPayer | null {
  return customerRef.startsWith('test-') ? (byName.get(customerRef.slice(5) as TestPayerBehaviour) ?? null) : null;
}
