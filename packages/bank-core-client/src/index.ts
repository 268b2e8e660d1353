export { createBankCoreClient, DEFAULT_RETRY, DEFAULT_TIMEOUT_MS } from './client';
export { assertCoreBaseUrl } from './base-url';
export { BankCoreError, type FailureReason, type BankCoreErrorDetails } from './errors';
export { closeBankCoreAgent, sharedBankCoreAgent } from './agent';
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
