/** The gateway's built-in test bank and its test payers (README "Built-in test bank"). */
export { startTestBanks, type TestBanks, type TestBanksOptions } from './test-banks';
export { TEST_BANKS_SCHEMA } from './ledger';
export type { ConfirmCredit, CreditConfirmedBody } from './confirm-link';
export {
  TEST_PAYERS,
  TEST_OTP,
  DEFAULT_TEST_BALANCE,
  parseTestPayerAlias,
  testPayerRouting,
  testPayerByIban,
  testPayerIban,
  type TestPayer,
  type TestPayerBehaviour,
} from './payers';
