export { createBankCoreClient, DEFAULT_RETRY, DEFAULT_TIMEOUT_MS } from './client';
export { assertCoreBaseUrl } from './base-url';
export { BankCoreError, type FailureReason, type BankCoreErrorDetails } from './errors';
export { closeBankCoreAgent, sharedBankCoreAgent } from './agent';
export { findBooking, type BookingEvidence, type WantedBooking } from './reconcile';
export { bankCoreOpenApiDocument } from './openapi';
export {
  assertSameWorld,
  BankCorePool,
  NO_TEST_CORES,
  type BankCorePoolSettings,
  type BuiltInTestCores,
  type CoreAddress,
  type WorldCoreClient,
} from './pool';
export { DUPLICATE_CODES, INSUFFICIENT_FUNDS_CODE, KEY_REFUSED_CODES } from './schemas';
export type {
  BankCoreClient,
  BankCoreClientOptions,
  CallOptions,
  CoreAccount,
  CoreMovement,
  CoreStatement,
  CoreTransaction,
  CreditInput,
  DebitInput,
  EnrollAliasInput,
  EnrollAliasResult,
  RetryPolicy,
  VerifyCustomerInput,
} from './types';
