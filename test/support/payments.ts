import { randomInt } from 'node:crypto';
import { startSandboxBank, type SandboxBank, type SandboxTransaction } from '@gateway/bank-sandbox';
import { createLogger, newSecret } from '@gateway/kernel';
import type { EngineSettings } from '@gateway/subgraph-payments';
import { lyIban, type TestPlatform } from './platform';

/**
 * Payment seeds over real components: sandbox bank cores registered at the platform (their
 * credit-confirmed callbacks reach its rest-compat), funded customers enrolled in the identity
 * registry, and short engine timings so failure and recovery tests stay quick.
 */
export const FAST_ENGINE: Partial<EngineSettings> = {
  coreTimeoutMs: 600,
  coreAttempts: 2,
  coreBudgetMs: 1_500,
  leaseMs: 2_500,
  retryDelayMs: 300,
  recoveryIntervalMs: 150,
  expiryIntervalMs: 150,
  authorizeWaitMs: 4_000,
  bankRoutingCacheMs: 0,
  aliasRoutingCacheMs: 0,
};

/**
 * FAST_ENGINE with short outcome deadlines and rail confirmation timings, so "gives up in time"
 * (FAILED with CBS_OUTCOME_UNKNOWN, the operator's attention list) and "completes on the evidence"
 * fit in a test.
 */
export const SHORT_DEADLINES_ENGINE: Partial<EngineSettings> = {
  ...FAST_ENGINE,
  coreAttempts: 3,
  replayLimit: 2,
  outcomeDeadlineMs: 2_500,
  confirmResendAfterMs: 400,
  confirmGiveUpAfterMs: 2_000,
};

let institutionCounter = 500 + randomInt(0, 300);

export interface Customer {
  alias: string;
  iban: string;
  customerRef: string;
  otp: string;
  bank: PaymentBank;
}

export interface PaymentBank {
  handle: string;
  institutionCode: string;
  bankKey: string;
  internalKey: string;
  sandbox: SandboxBank;
  /** The bank's settlement_account_iban: an LYD account at its sandbox, funded so a net debit can be booked. */
  settlementIban: string;
  /** Its USD settlement account (settlement_accounts), funded likewise. */
  usdSettlementIban: string;
  /** A funded account with an OTP, enrolled in the identity registry under a fresh alias. */
  customer(options?: { balance?: number; currency?: string; otp?: string }): Promise<Customer>;
  balance(iban: string): Promise<number>;
  /** Ledger lines of this bank carrying a core reference. */
  movements(reference: string): Promise<SandboxTransaction[]>;
}

export async function startPaymentBank(
  t: TestPlatform,
  options: { minAmount?: number; maxAmount?: number; confirmDelayMs?: { min: number; max: number } } = {},
): Promise<PaymentBank> {
  const institutionCode = String(institutionCounter++);
  const handle = `pay${institutionCode}`;
  const internalKey = newSecret('sik_');
  const sandbox = await startSandboxBank({
    handle,
    institutionCode,
    internalKey,
    db: t.platform.db,
    logger: createLogger('test', 'silent'),
    confirmDelayMs: options.confirmDelayMs ?? { min: 5, max: 30 },
  });
  // Settlement books the bank's net position here (a bank owing its net needs the funds).
  const settlementIban = lyIban(institutionCode, 1);
  const usdSettlementIban = lyIban(institutionCode, 2);
  for (const [currency, iban] of [
    ['LYD', settlementIban],
    ['USD', usdSettlementIban],
  ] as const) {
    await sandbox.openAccount({
      customerRef: `${handle}-settlement`,
      holderName: `Pay Bank ${institutionCode} settlement`,
      currency,
      balance: 1_000_000_000,
      iban,
    });
  }
  const registered = await t.rest('POST', '/banks', {
    headers: { 'x-service-admin-key': t.adminKey },
    body: {
      bank_handle: handle,
      display_name: `Pay Bank ${institutionCode}`,
      country: 'LY',
      core_base_url: sandbox.url,
      settlement_account_iban: settlementIban,
      settlement_accounts: [{ currency: 'USD', iban: usdSettlementIban }],
      contact_email: `ops@${handle}.ly`,
      institution_code: institutionCode,
      internal_key: internalKey,
      ...(options.minAmount !== undefined ? { min_amount: options.minAmount } : {}),
      ...(options.maxAmount !== undefined ? { max_amount: options.maxAmount } : {}),
    },
  });
  if (registered.status !== 201)
    throw new Error(`bank registration failed: ${registered.status} ${JSON.stringify(registered.body)}`);
  const bankKey = registered.body.bank_key as string;
  await sandbox.configureGateway({ url: t.platform.restUrl, bankKey });
  let customers = 0;
  const bank: PaymentBank = {
    handle,
    institutionCode,
    bankKey,
    internalKey,
    sandbox,
    settlementIban,
    usdSettlementIban,
    async customer({ balance = 1_000_000, currency = 'LYD', otp = String(randomInt(100_000, 999_999)) } = {}) {
      customers += 1;
      const customerRef = `${handle}-c${customers}-${randomInt(0, 1e9)}`;
      const account = await sandbox.openAccount({
        customerRef,
        holderName: `Customer ${customers}`,
        currency: currency as 'LYD',
        balance,
      });
      await sandbox.setOtp(customerRef, otp);
      const alias = `c${customers}.${handle}.${randomInt(0, 1e6)}`;
      const claimed = await t.rest('POST', '/v1/identity/claim', {
        headers: { 'x-service-bank-key': bankKey },
        body: {
          npt_handle: alias,
          iban: account.iban,
          customer_display_name: `Customer ${customers}`,
          bank_customer_ref: customerRef,
        },
      });
      if (claimed.status !== 201)
        throw new Error(`alias claim failed: ${claimed.status} ${JSON.stringify(claimed.body)}`);
      return { alias, iban: account.iban, customerRef, otp, bank };
    },
    async balance(iban) {
      return Number((await sandbox.getAccount(iban))!.balance);
    },
    async movements(reference) {
      return (await sandbox.transactions()).filter((line) => line.reference === reference);
    },
  };
  return bank;
}

/** Polls until `check` returns a value (not undefined) or the deadline passes. No timing is asserted: the deadline only bounds a wait. */
export async function eventually<T>(check: () => Promise<T | undefined>, what: string, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });

/** The payments outbox rows of one session, oldest first. */
export async function sessionEvents(
  t: TestPlatform,
  sessionId: string,
): Promise<Array<{ kind: string; data: Record<string, unknown>; audience: string }>> {
  return t.platform.db
    .knex('payments.outbox')
    .where({ aggregate_id: sessionId, aggregate_type: 'payment_session' })
    .orderBy('sequence', 'asc')
    .select('kind', 'data', 'audience');
}

/** Waits until the merchant sees the session in `status`. */
export function sessionReaches(
  t: TestPlatform,
  apiKey: string,
  sessionId: string,
  status: string,
  timeoutMs = 15_000,
): Promise<Record<string, any>> {
  return eventually(
    async () => {
      const answer = await t.rest('GET', `/payments/sessions/${sessionId}`, { headers: bearer(apiKey) });
      return answer.body?.status === status ? answer.body : undefined;
    },
    `session ${sessionId} to reach ${status}`,
    timeoutMs,
  );
}

/**
 * A session of `amount` to `payee`, paid by `payer` at checkout and COMPLETED (cross bank: once the
 * payee's bank confirmed): what a refund starts from. Answers the session id.
 */
export async function paidSession(
  t: TestPlatform,
  apiKey: string,
  payee: Pick<Customer, 'alias'>,
  payer: Pick<Customer, 'alias' | 'otp'>,
  amount: number,
  patch: Record<string, unknown> = {},
): Promise<string> {
  const created = await t.rest('POST', '/payments/sessions', {
    headers: bearer(apiKey),
    body: { amount, currency: 'LYD', destination: { type: 'alias', value: payee.alias }, ...patch },
  });
  if (created.status !== 201) throw new Error(`session creation failed: ${JSON.stringify(created.body)}`);
  const id = created.body.session_id as string;
  const paid = await t.rest('POST', `/pay/${id}/authorize`, {
    body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
  });
  if (paid.status !== 200) throw new Error(`authorization failed: ${JSON.stringify(paid.body)}`);
  await sessionReaches(t, apiKey, id, 'COMPLETED');
  return id;
}

/** Waits until the merchant sees the refund in a final status (COMPLETED or FAILED). */
export function refundSettles(t: TestPlatform, apiKey: string, refundId: string): Promise<Record<string, any>> {
  return eventually(async () => {
    const answer = await t.rest('GET', `/refunds/${refundId}`, { headers: bearer(apiKey) });
    return answer.body?.status === 'COMPLETED' || answer.body?.status === 'FAILED' ? answer.body : undefined;
  }, `refund ${refundId} to settle`);
}
