import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from '@gateway/db';
import { openTestDatabase } from '@gateway/db/testing';
import { createRabbitBus, type EventBus } from '@gateway/events';
import { testBus, testRabbitOptions } from '@gateway/events/testing';
import { createLogger } from '@gateway/kernel';
import {
  loadPlatformConfig,
  migratePlatformSchemas,
  platformSchemasKey,
  startPlatform,
  type Platform,
} from '@gateway/platform';
import type { LimitOverrides } from '@gateway/router';
import type { EngineSettings, PaymentsStartOptions } from '@gateway/subgraph-payments';
import type { OpenBankingJobSettings } from '@gateway/subgraph-open-banking';
import { composeIBAN } from 'ibantools';
import { graphqlTestClient, type GraphQLTestClient } from './graphql';

export interface RestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/** GraphQL goes to the router's /graphql: `execute` fails the test on any error, `executeExpectingErrors` returns them. */
export interface TestPlatform extends GraphQLTestClient {
  platform: Platform;
  adminKey: string;
  /** Calls rest-compat as a REST client would. */
  rest<T = any>(
    method: string,
    path: string,
    options?: { body?: unknown; headers?: Record<string, string> },
  ): Promise<RestResponse<T>>;
  seed: Seeds;
  stop(): Promise<void>;
}

let institutionCounter = 300;

/** Every test file's platform starts on a copy of one migrated database (packages/db/src/testing.ts). */
const PLATFORM_TEMPLATE = { key: platformSchemasKey(), build: migratePlatformSchemas };

/** A valid LY IBAN at an institution code. */
export const lyIban = (institutionCode: string, account: number | string): string =>
  composeIBAN({ countryCode: 'LY', bban: `${institutionCode}001${String(account).padStart(15, '0')}` })!;

export interface SeededBank {
  handle: string;
  institutionCode: string;
  bankKey: string;
  internalKey: string;
}

/** Fluent seeds over the public API (admin key), so tests start from real records. */
export interface Seeds {
  registerBank(overrides?: Record<string, unknown>): Promise<SeededBank>;
  createMerchant(
    overrides?: Record<string, unknown>,
  ): Promise<{ merchantId: string; apiKey: string; webhookSecret: string }>;
  registerTpp(
    overrides?: Record<string, unknown>,
  ): Promise<{ tppId: string; tppAccessToken: string; webhookSecret: string }>;
  claimAlias(bank: SeededBank, overrides?: Record<string, unknown>): Promise<{ handle: string; iban: string }>;
}

/**
 * The whole platform in this process on a database of its own (fresh PostgreSQL database when
 * DATABASE_URL is set, in-memory PGlite otherwise), every port picked by the OS.
 */
export interface TestPlatformOptions {
  rateLimits?: LimitOverrides;
  env?: Record<string, string>;
  /** Another platform's database (a restart, or a second platform on the same data); not closed by stop(). */
  db?: Database;
  /**
   * The bus: RabbitMQ at this URL (a dead port, a proxy) in `busNamespace`. Unset: RabbitMQ when
   * AMQP_URL is set (a namespace of its own, so parallel files never share queues; CI=true
   * without AMQP_URL fails), the in-process bus otherwise.
   */
  amqpUrl?: string;
  busNamespace?: string;
  webhookAttemptTimeoutMs?: number;
  /** Payment engine and job timing (short deadlines and intervals for tests of failures and recovery). */
  paymentsEngine?: Partial<EngineSettings>;
  /** Payment session TTL (below SESSION_TTL_SECONDS' minimum of 60). */
  paymentsSessionTtlSeconds?: number;
  /** Settlement timing besides SETTLEMENT_INTERVAL_SECONDS (env). */
  paymentsSettlement?: PaymentsStartOptions['settlement'];
  /** Open Banking job timing (a short consent expiry interval). */
  openBankingJobs?: Partial<OpenBankingJobSettings>;
  /** SCA time of payment orders above the exemption limit. */
  openBankingScaTtlMs?: number;
}

export async function startTestPlatform(options: TestPlatformOptions = {}): Promise<TestPlatform> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-platform-'));
  const db = options.db ?? (await openTestDatabase({ template: PLATFORM_TEMPLATE }));
  const rabbit = testRabbitOptions(options.busNamespace);
  const bus: EventBus = options.amqpUrl ? createRabbitBus(options.amqpUrl, rabbit) : testBus(rabbit);
  const config = loadPlatformConfig({
    DATA_DIR: dataDir,
    REST_PORT: '0',
    ROUTER_PORT: '0',
    SANDBOX_BANKS: 'off',
    // Tests run their banks' cores and webhook receivers on loopback; a test of the egress guard turns it off.
    PRIVATE_TARGETS: '1',
    // Every test file starts a platform on the same committed schemas: composed once a run, not once a start.
    SUPERGRAPH_CACHE_DIR: join(tmpdir(), 'gateway-supergraph'),
    ...options.env,
  });
  const platform = await startPlatform(config, {
    db,
    bus,
    logger: createLogger('test', (process.env.TEST_LOG_LEVEL as 'silent') ?? 'silent'),
    rateLimits: options.rateLimits ?? { read: { points: 100_000 }, write: { points: 100_000 } },
    webhookAttemptTimeoutMs: options.webhookAttemptTimeoutMs,
    paymentsEngine: options.paymentsEngine,
    paymentsSessionTtlSeconds: options.paymentsSessionTtlSeconds,
    paymentsSettlement: options.paymentsSettlement,
    openBankingJobs: options.openBankingJobs,
    openBankingScaTtlMs: options.openBankingScaTtlMs,
  });
  const adminHeaders = { 'x-service-admin-key': platform.adminKey };

  const rest: TestPlatform['rest'] = async (method, path, { body, headers } = {}) => {
    const response = await fetch(`${platform.restUrl}${path}`, {
      method,
      headers: { ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: text ? JSON.parse(text) : undefined };
  };

  const expectOk = <T>(response: RestResponse<T>, what: string): T => {
    if (response.status >= 300) throw new Error(`${what} failed: ${response.status} ${JSON.stringify(response.body)}`);
    return response.body;
  };

  const seed: Seeds = {
    async registerBank(overrides = {}) {
      const institutionCode = String(institutionCounter++);
      const handle = `bank${institutionCode}`;
      const body = expectOk(
        await rest('POST', '/banks', {
          headers: adminHeaders,
          body: {
            bank_handle: handle,
            display_name: `Bank ${institutionCode}`,
            country: 'LY',
            core_base_url: 'http://127.0.0.1:9',
            settlement_account_iban: lyIban(institutionCode, 1),
            contact_email: `ops@${handle}.ly`,
            institution_code: institutionCode,
            ...overrides,
          },
        }),
        'registerBank',
      );
      return {
        handle: body.bank_handle ?? handle,
        institutionCode,
        bankKey: body.bank_key,
        internalKey: body.internal_key,
      };
    },
    // Live unless a test says otherwise: most suites prove the engine against the sandbox banks as
    // live cores (their balances are the evidence); test-mode suites ask for mode 'test'.
    async createMerchant(overrides = {}) {
      const body = expectOk(
        await rest('POST', '/merchants', {
          headers: adminHeaders,
          body: { name: 'Test Shop', mode: 'live', ...overrides },
        }),
        'createMerchant',
      );
      return { merchantId: body.merchant_id, apiKey: body.api_key, webhookSecret: body.webhook_secret };
    },
    async registerTpp(overrides = {}) {
      const body = expectOk(
        await rest('POST', '/ob/tpps', {
          headers: adminHeaders,
          body: { name: 'Test TPP', mode: 'live', redirect_uris: ['https://tpp.example/callback'], ...overrides },
        }),
        'registerTpp',
      );
      return { tppId: body.tpp_id, tppAccessToken: body.tpp_access_token, webhookSecret: body.webhook_secret };
    },
    async claimAlias(bank, overrides = {}) {
      const account = Math.floor(Math.random() * 1e12);
      const handle = `user${account}`;
      const iban = lyIban(bank.institutionCode, account);
      expectOk(
        await rest('POST', '/v1/identity/claim', {
          headers: { 'x-service-bank-key': bank.bankKey },
          body: {
            npt_handle: handle,
            iban,
            customer_display_name: 'Test Customer',
            bank_customer_ref: `cust-${account}`,
            ...overrides,
          },
        }),
        'claimAlias',
      );
      return { handle: (overrides.npt_handle as string) ?? handle, iban: (overrides.iban as string) ?? iban };
    },
  };

  return {
    platform,
    adminKey: platform.adminKey,
    rest,
    ...graphqlTestClient(platform.graphqlUrl),
    seed,
    async stop() {
      await platform.stop();
      await bus.close();
      if (!options.db) await db.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
