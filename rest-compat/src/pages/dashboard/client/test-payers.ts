/**
 * The built-in test bank's test payers, for the test-mode banner: the browser bundle cannot import
 * the test bank itself (a server package), so the names are kept here and test-payers.spec.ts
 * checks them against packages/bank-sandbox's TEST_PAYERS.
 */
export const TEST_PAYER_NAMES = [
  'success',
  'wrong-otp',
  'insufficient',
  'timeout',
  'unknown',
  'credit-refused',
  'late-confirm',
] as const;

/** The OTP the test bank accepts for every test payer it does not refuse. */
export const TEST_PAYER_OTP = '123456';
