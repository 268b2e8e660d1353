import { randomBytes } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { createLogger, type Logger } from '@gateway/kernel';
import type { Database } from '@gateway/db';
import { BankError } from '../errors';
import type { DelayRange } from '../gateway/confirmations';
import { buildBankServer } from '../http/app';
import { sandboxOrm } from '../ledger/orm';
import type { SandboxTransaction } from '../ledger/views';
import type { ConfirmCredit } from './confirm-link';
import { TestBankConfirmations } from './confirmations';
import { TEST_BANKS_SCHEMA, TestLedger } from './ledger';
import { testBankMigrations } from './migrations';
import { registerTestBankRoutes } from './routes';

export interface TestBanksOptions {
  db: Database;
  logger?: Logger;
  /** Listening address; the port is always a free one. Default 127.0.0.1. */
  host?: string;
  /** Hands a rail credit's credit-confirmed to the gateway of this process; absent: never confirmed. */
  confirm?: ConfirmCredit;
  /** Delay between a rail credit and its confirmation; default 50–200 ms. */
  confirmDelayMs?: DelayRange;
  /** Delay of the confirmation of a late-confirm test payer's payment; default 15 s. */
  lateConfirmDelayMs?: number;
  /** Time source for bookings. */
  clock?: () => Date;
}

export interface TestBanks {
  /** Registers a bank handle (idempotent) and tells where its test core answers and with which key. */
  core(bank: { handle: string; institutionCode: string }): { baseUrl: string; internalKey: string };
  /** Balance (minor units) of an account, null when the test bank never opened it. */
  balance(handle: string, iban: string): Promise<number | null>;
  /** Ledger lines of one account (newest first; none when never opened), or all of a handle's. */
  transactions(handle: string, iban?: string): Promise<SandboxTransaction[]>;
  stop(): Promise<void>;
}

const HANDLE = /^[a-z][a-z0-9_-]{1,31}$/;

/**
 * The gateway's built-in test bank: the bank core of every test-mode object whose bank registered
 * no sandbox core of its own. One HTTP server answers for every handle under /banks/{handle},
 * with its ledger in the `test_banks` schema (never the sandbox banks' `bank_sandbox`).
 */
export async function startTestBanks(options: TestBanksOptions): Promise<TestBanks> {
  const delay = options.confirmDelayMs ?? { min: 50, max: 200 };
  if (!(delay.min >= 0 && delay.max >= delay.min)) throw new Error('test banks: confirmDelayMs needs 0 <= min <= max');
  const lateDelayMs = options.lateConfirmDelayMs ?? 15_000;
  if (!(Number.isFinite(lateDelayMs) && lateDelayMs >= 0))
    throw new Error('test banks: lateConfirmDelayMs must be >= 0');

  const logger = options.logger ?? createLogger('bank-sandbox:test-banks');
  const clock = options.clock ?? (() => new Date());
  const ledger = new TestLedger(await sandboxOrm(options.db, TEST_BANKS_SCHEMA, testBankMigrations), clock);
  const confirmations = options.confirm
    ? new TestBankConfirmations(ledger, options.confirm, delay, lateDelayMs, logger, clock)
    : null;
  const stopping = new AbortController();
  // Per start: the key guards the test cores of this process only (its gateway is the one caller).
  const internalKey = `sik_test_${randomBytes(24).toString('base64url')}`;
  const registered = new Map<string, string>();

  const app = buildBankServer(logger, () => internalKey);
  app.get('/healthz', async () => ({ status: 'ok', bank_handles: [...registered.keys()] }));
  registerTestBankRoutes(app, {
    ledger,
    registered: (handle) => registered.has(handle),
    confirmations,
    stopping: stopping.signal,
    logger,
  });
  await app.listen({ host: options.host ?? '127.0.0.1', port: 0 });
  const address = app.server.address() as AddressInfo;
  const url = `http://${address.family === 'IPv6' ? `[${address.address}]` : address.address}:${address.port}`;
  logger.info({ url }, 'test banks listening');

  let stopped: Promise<void> | undefined;
  return {
    core(bank) {
      // A bad handle is a caller's defect (it is registered at the gateway under a valid one).
      if (!HANDLE.test(bank.handle)) throw new Error(`test banks: handle "${bank.handle}" must match ${HANDLE}`);
      if (!/^\d{3}$/.test(bank.institutionCode)) throw new Error('test banks: institutionCode must be 3 digits');
      if (!registered.has(bank.handle)) {
        registered.set(bank.handle, bank.institutionCode);
        confirmations?.register(bank.handle);
      }
      return { baseUrl: `${url}/banks/${bank.handle}`, internalKey };
    },
    async balance(handle, iban) {
      return (await ledger.of(handle).accounts.getAccount(iban))?.balance ?? null;
    },
    async transactions(handle, iban) {
      const { movements } = ledger.of(handle);
      if (!iban) return movements.allTransactions();
      try {
        return await movements.statement(iban);
      } catch (error) {
        if (error instanceof BankError && error.code === 'ACCOUNT_NOT_FOUND') return [];
        throw error;
      }
    },
    stop: () =>
      (stopped ??= (async () => {
        stopping.abort();
        confirmations?.stop();
        await app.close();
      })()),
  };
}
