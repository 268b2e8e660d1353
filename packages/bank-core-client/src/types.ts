import type { Currency, Logger } from '@gateway/kernel';
import type { Dispatcher } from 'undici';
import type { Registry } from 'prom-client';
import type { RetryPolicy } from './transport';

export type { RetryPolicy };

export interface BankCoreClientOptions {
  /** The bank's handle: a metrics and log label, and part of error details. */
  bankHandle: string;
  /** The bank's core_base_url; https in production. */
  baseUrl: string;
  /** X-Service-Internal-Key sent on every call. */
  internalKey: string;
  /** Deadline of one attempt (the spec gives banks 10 s to answer). Default 10 000. */
  timeoutMs?: number;
  /** Default {attempts: 3, baseDelayMs: 200, maxDelayMs: 2000}. attempts: 1 disables retries. */
  retry?: RetryPolicy;
  /** Deadline of a whole call, retries included. Default 2.5 × timeoutMs. */
  totalBudgetMs?: number;
  /** Refuse a non-https baseUrl. Default: NODE_ENV === 'production'. */
  production?: boolean;
  /** The service's registry; the client's metrics are added to it. Default: a private registry. */
  metrics?: Registry;
  logger?: Logger;
  /** Connection pool to use instead of the process-wide one (tests, benchmarks). */
  dispatcher?: Dispatcher;
}

export interface CallOptions {
  /** Propagated as X-Request-Id (the gateway request that caused this call); generated if absent. */
  requestId?: string;
}

export interface VerifyCustomerInput extends CallOptions {
  customerRef: string;
  otp: string;
}

export interface DebitInput extends CallOptions {
  iban: string;
  /** Minor units. */
  amount: number;
  currency: Currency;
  /** The deduplication key at the core: the session (or charge, order, cycle) id. */
  reference: string;
  description: string;
}

export interface CreditInput extends DebitInput {
  /** Handle of the bank the money comes from; another bank's makes it a rail credit. */
  debtorBank?: string;
  sessionId?: string;
}

/** What the core booked for a debit or credit. */
export interface CoreMovement {
  transactionId: string;
  reference: string;
  iban: string;
  amount: number;
  currency: Currency;
  /** Null when the core does not say. */
  balanceAfter: number | null;
  /** ISO 8601; null when the core does not say. */
  bookedAt: string | null;
}

export interface CoreAccount {
  iban: string;
  holderName: string;
  /** Null when the core does not say. */
  customerRef: string | null;
  balance: number;
  currency: Currency;
}

export interface CoreTransaction {
  transactionId: string;
  /** YYYY-MM-DD */
  bookingDate: string;
  amount: number;
  currency: Currency;
  creditDebitIndicator: 'CREDIT' | 'DEBIT';
  description: string;
  reference: string | null;
}

export interface CoreStatement {
  iban: string;
  transactions: CoreTransaction[];
}

export interface EnrollAliasInput extends CallOptions {
  alias: string;
  accountIban: string;
  customerRef: string;
}

/** The gateway's answer to the bank's claim, relayed by the bank (201 and the alias record). */
export interface EnrollAliasResult {
  status: number;
  alias: Record<string, unknown>;
}

export interface BankCoreClient {
  readonly bankHandle: string;
  readonly baseUrl: string;
  /** OTP_INVALID when the core refuses the OTP. */
  verifyCustomer(input: VerifyCustomerInput): Promise<{ verified: true }>;
  /** INSUFFICIENT_FUNDS when the balance is too low; safe to call again with the same reference. */
  debit(input: DebitInput): Promise<CoreMovement>;
  credit(input: CreditInput): Promise<CoreMovement>;
  getAccount(iban: string, options?: CallOptions): Promise<CoreAccount>;
  /** Dates are YYYY-MM-DD, inclusive. */
  listTransactions(iban: string, fromDate: string, toDate: string, options?: CallOptions): Promise<CoreStatement>;
  /** Has the bank claim the alias at the gateway; HANDLE_TAKEN / HANDLE_INVALID pass through. */
  enrollAlias(input: EnrollAliasInput): Promise<EnrollAliasResult>;
}
