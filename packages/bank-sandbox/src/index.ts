export { startSandboxBank, type SandboxBank, type SandboxBankOptions, type GatewayConnection } from './sandbox-bank';
export type { OpenAccountInput } from './ledger/accounts';
export type { SandboxAccount, SandboxTransaction } from './ledger/views';
export type { FaultPlan, RequestCounts, CoreOperation } from './faults';
export type { ConfirmationRetry, DelayRange } from './gateway/confirmations';
export { composeLyIban, newLyIban } from './iban';
export { sandboxMigrations } from './migrations';
export { SANDBOX_SCHEMA } from './ledger/orm';
export * from './test-bank';
