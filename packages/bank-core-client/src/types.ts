import type { Currency, EgressPolicy, Logger } from '@gateway/kernel';
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
  /**
   * Where calls may connect (PRIVATE_TARGETS), judged as webhooks are: a literal host the policy
   * refuses is never connected to, and a name only to addresses the guarded lookup allows (the
   * process-wide pool of the policy). A refused call fails as an unreachable core does
   * (CBS_TIMEOUT, reason unreachable, one attempt, nothing sent). The gateway's services always
   * set it (BankCorePool); unset, the client connects anywhere (operator tools such as bank-check,
   * tests and benchmarks that aim it at a core they started).
   */
  egress?: EgressPolicy;
  /** Connection pool to use instead of the process-wide one (tests, benchmarks). With egress, literal hosts are still judged; names resolve as this pool does. */
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

/** Same fields as a debit (spec: "same structure as debit"); whether it is a rail credit is the core's business. */
export type CreditInput = DebitInput;

/** What the gateway may conclude from a debit or credit the core accepted (any 2xx, or a duplicate refusal). */
export interface CoreMovement {
  /** transaction_id (or id) when the core said one. */
  transactionId: string | null;
  /** booked_at (or booking_date/date) when the core said one and it parses; else null. */
  bookedAt: string | null;
  /** The core answered a duplicate-reference refusal: the reference was booked by an earlier call. */
  duplicate: boolean;
}

export interface CoreAccount {
  iban: string;
  /** Empty when the core does not say. */
  holderName: string;
  /** Null when the core does not say. */
  customerRef: string | null;
  balance: number;
  currency: Currency;
}

export interface CoreTransaction {
  /** Null when the core does not say. */
  transactionId: string | null;
  /** YYYY-MM-DD */
  bookingDate: string;
  /** Minor units, always positive: the direction is creditDebitIndicator. */
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
  /** OTP_INVALID when the core refuses the OTP (401, or a 2xx without verified: true). */
  verifyCustomer(input: VerifyCustomerInput): Promise<{ verified: true }>;
  /**
   * Resolves when the core booked it (any 2xx, or a duplicate-reference refusal). INSUFFICIENT_FUNDS
   * when the balance is too low; BankCoreError reasons say what is known otherwise. Safe to call
   * again with the same reference.
   */
  debit(input: DebitInput): Promise<CoreMovement>;
  credit(input: CreditInput): Promise<CoreMovement>;
  getAccount(iban: string, options?: CallOptions): Promise<CoreAccount>;
  /** Dates are YYYY-MM-DD, inclusive. */
  listTransactions(iban: string, fromDate: string, toDate: string, options?: CallOptions): Promise<CoreStatement>;
  /** Has the bank claim the alias at the gateway; HANDLE_TAKEN / HANDLE_INVALID pass through. */
  enrollAlias(input: EnrollAliasInput): Promise<EnrollAliasResult>;
}
