import type { AddressInfo } from 'node:net';
import { createLogger, type Logger } from '@gateway/kernel';
import type { Database } from '@gateway/db';
import { AccountBook, type OpenAccountInput } from './ledger/accounts';
import { MovementBook } from './ledger/movements';
import { sandboxOrm } from './ledger/orm';
import type { SandboxAccount, SandboxTransaction } from './ledger/views';
import { FaultInjector, type FaultPlan, type RequestCounts } from './faults';
import { GatewayLink } from './gateway/gateway-link';
import {
  CreditConfirmations,
  DEFAULT_CONFIRMATION_RETRY,
  type ConfirmationRetry,
  type DelayRange,
} from './gateway/confirmations';
import { buildSandboxApp } from './http/app';
import type { SandboxContext } from './http/context';

export interface SandboxBankOptions {
  /** The bank handle, as registered at the gateway (e.g. `bank1`). */
  handle: string;
  /** Three digits: the bank code inside this bank's IBANs. */
  institutionCode: string;
  /** X-Service-Internal-Key: checked on every call, sent on credit-confirmed. */
  internalKey: string;
  db: Database;
  host?: string;
  /** 0 picks a free port. */
  port?: number;
  /** Gateway base address, for credit-confirmed and alias claims; can also come later (configureGateway). */
  gatewayUrl?: string;
  bankKey?: string;
  /** Delay between a rail credit and its credit-confirmed callback; default 1000–3000 ms. */
  confirmDelayMs?: DelayRange;
  /** Backoff and horizon of credit-confirmed retries; default 500 ms doubling up to 1 min, for 24 h. */
  confirmRetry?: Partial<ConfirmationRetry>;
  logger?: Logger;
  /** Time source for bookings (tests book on chosen dates). */
  clock?: () => Date;
}

export interface GatewayConnection {
  url: string;
  bankKey?: string;
  /** The internal key the gateway issued at registration; replaces the bank's key both ways. */
  internalKey?: string;
}

export interface SandboxBank {
  readonly url: string;
  readonly handle: string;
  readonly institutionCode: string;
  stop(): Promise<void>;
  configureGateway(connection: GatewayConnection): Promise<void>;
  openAccount(input: OpenAccountInput): Promise<SandboxAccount>;
  setOtp(customerRef: string, otp: string): Promise<void>;
  getAccount(iban: string): Promise<SandboxAccount | null>;
  /** Ledger lines: one account's (newest first) or all of the bank's. */
  transactions(iban?: string): Promise<SandboxTransaction[]>;
  injectFaults(plan: FaultPlan): FaultPlan;
  clearFaults(): void;
  /** Core requests received since start (or the last reset), per operation. */
  requestCounts(): RequestCounts;
  resetRequestCounts(): void;
}

const HANDLE = /^[a-z][a-z0-9_-]{1,31}$/;

/** Starts one sandbox bank: its HTTP server on host:port, its ledger in the `bank_sandbox` schema. */
export async function startSandboxBank(options: SandboxBankOptions): Promise<SandboxBank> {
  // Start-up misconfiguration, not a client-reachable path.
  if (!HANDLE.test(options.handle)) throw new Error(`sandbox bank: handle "${options.handle}" must match ${HANDLE}`);
  if (!/^\d{3}$/.test(options.institutionCode)) throw new Error('sandbox bank: institutionCode must be 3 digits');
  if (!options.internalKey || options.internalKey.length < 8)
    throw new Error('sandbox bank: internalKey of at least 8 characters required');
  const delay = options.confirmDelayMs ?? { min: 1000, max: 3000 };
  if (!(delay.min >= 0 && delay.max >= delay.min))
    throw new Error('sandbox bank: confirmDelayMs needs 0 <= min <= max');
  const retry = { ...DEFAULT_CONFIRMATION_RETRY, ...options.confirmRetry };
  if (!(retry.firstDelayMs > 0 && retry.maxDelayMs >= retry.firstDelayMs && retry.horizonMs >= 0)) {
    throw new Error('sandbox bank: confirmRetry needs 0 < firstDelayMs <= maxDelayMs and horizonMs >= 0');
  }

  const logger = options.logger ?? createLogger(`bank-sandbox:${options.handle}`);
  const clock = options.clock ?? (() => new Date());
  const orm = await sandboxOrm(options.db);
  const stopping = new AbortController();
  let internalKey = options.internalKey;

  const accounts = new AccountBook(orm, options.handle, options.institutionCode, clock);
  const movements = new MovementBook(orm, options.handle, clock);
  const faults = new FaultInjector(stopping.signal);
  const gateway = new GatewayLink(() => internalKey);
  const confirmations = new CreditConfirmations(movements, gateway, delay, logger, retry, clock);

  const configureGateway = async (connection: GatewayConnection): Promise<void> => {
    if (connection.internalKey) internalKey = connection.internalKey;
    gateway.configure({ url: connection.url, ...(connection.bankKey ? { bankKey: connection.bankKey } : {}) });
    await confirmations.resume();
  };
  if (options.gatewayUrl) {
    gateway.configure({ url: options.gatewayUrl, ...(options.bankKey ? { bankKey: options.bankKey } : {}) });
  }

  const ctx: SandboxContext = {
    handle: options.handle,
    institutionCode: options.institutionCode,
    accounts,
    movements,
    faults,
    gateway,
    confirmations,
    internalKey: () => internalKey,
    configureGateway,
    logger,
  };
  const app = buildSandboxApp(ctx);
  await app.listen({ host: options.host ?? '127.0.0.1', port: options.port ?? 0 });
  const address = app.server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  await confirmations.resume();
  logger.info({ url, bank_handle: options.handle }, 'sandbox bank listening');

  let stopped: Promise<void> | undefined;
  return {
    url,
    handle: options.handle,
    institutionCode: options.institutionCode,
    stop: () =>
      (stopped ??= (async () => {
        stopping.abort();
        confirmations.stop();
        await app.close();
      })()),
    configureGateway,
    openAccount: (input) => accounts.openAccount(input),
    setOtp: (customerRef, otp) => accounts.setOtp(customerRef, otp),
    getAccount: (iban) => accounts.getAccount(iban),
    transactions: (iban) => (iban ? movements.statement(iban) : movements.allTransactions()),
    injectFaults: (plan) => faults.inject(plan),
    clearFaults: () => faults.clear(),
    requestCounts: () => faults.requestCounts(),
    resetRequestCounts: () => faults.resetCounts(),
  };
}
