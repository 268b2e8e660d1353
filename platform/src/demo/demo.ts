import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { startSandboxBank, TEST_OTP, TEST_PAYERS, type SandboxBank } from '@gateway/bank-sandbox';
import { newSecret, type Logger } from '@gateway/kernel';
import type { Database } from '@gateway/db';
import { DEMO_GATE } from '../platform';
import { DEMO_BANKS, DEMO_CURRENCY, DEMO_CUSTOMERS, type DemoFile, type DemoPrivateJwk } from './demo-data';

/** Opening balance of each demo bank's settlement account (minor units). */
const DEMO_SETTLEMENT_FUNDS = 100_000_000;
import { DemoSeedError, expectOk, readDemoFile, restClient, saveDemoFile, savedProgress, type Rest } from './demo-file';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';

export interface DemoOptions {
  /** Sandbox banks listen on portBase, portBase+1; the webhook receiver on portBase+9 (0: any free port). */
  portBase: number;
  logger: Logger;
  /** Where what a person running the demo wants to see goes (`npm start`: info level): the webhooks the demo merchant accepted. Default `logger`. */
  progress?: Logger;
  /** Stops the seed between two saved steps (a signal during start); the next start resumes it. */
  signal?: AbortSignal;
  /** Told after each seeding step is saved, e.g. `bank oasis`, `customer amina`, `merchant`, `tpp`. */
  onStep?: (step: string) => void;
}

export interface Demo {
  file: DemoFile;
  /** Every step was already done by an earlier start: nothing was registered this time. */
  reused: boolean;
  banks: SandboxBank[];
  receiver: WebhookReceiver;
  stop(): Promise<void>;
}

const port = (base: number, offset: number) => (base === 0 ? 0 : base + offset);

/**
 * What the demo is seeded into: a running platform (`npm start`), or any deployment reached at
 * `restUrl` whose database the sandbox banks may share (`npm run start:cluster` seeds from a
 * process of its own). `readiness`: a gate the seed releases when done (the platform's /readyz).
 */
export interface DemoTarget {
  restUrl: string;
  adminKey: string;
  db: Database;
  config: { dataDir: string; host: string };
  readiness?: { release(gate: string): void };
  /** Headers GraphiQL opens with (the in-process platform's router; a cluster's routers have none). */
  prefillGraphiQL?(headers: Record<string, string>): void;
}

/**
 * Starts the sandbox banks and seeds the demo through the public REST API, exactly as a bank and
 * an operator would. Each step first looks for what an earlier start already did (demo.json is
 * the seed's progress, saved after every step), so a start stopped halfway finishes the seed
 * instead of registering twice. The platform reports ready (/readyz) once the seed is done.
 */
export async function startDemo(platform: DemoTarget, options: DemoOptions): Promise<Demo> {
  const file = join(platform.config.dataDir, 'demo.json');
  const rest = restClient(platform.restUrl);
  const admin = { 'x-service-admin-key': platform.adminKey };
  const saved = await savedProgress(rest, readDemoFile(file));
  const reused = saved?.seed_complete === true;
  const demo: DemoFile = {
    seed_complete: false,
    admin_key: platform.adminKey,
    base_url: platform.restUrl,
    graphql_url: `${platform.restUrl}/graphql`,
    merchant: saved?.merchant ?? { merchant_id: '', api_key: '', webhook_secret: '' },
    live_merchant: saved?.live_merchant ?? { merchant_id: '', api_key: '', webhook_secret: '' },
    tpp: saved?.tpp ?? { tpp_id: '', tpp_access_token: '' },
    ...(saved?.fapi2_tpp ? { fapi2_tpp: saved.fapi2_tpp } : {}),
    banks: saved?.banks ?? [],
    customers: [],
  };
  const done = (step: string) => {
    saveDemoFile(file, demo);
    options.onStep?.(step);
    options.signal?.throwIfAborted();
  };

  const banks: SandboxBank[] = [];
  let receiver: WebhookReceiver | undefined;
  const stop = async () => {
    await receiver?.stop();
    for (const bank of banks) await bank.stop();
  };
  try {
    options.signal?.throwIfAborted();
    for (const [index, definition] of DEMO_BANKS.entries()) {
      let entry = demo.banks.find((b) => b.bank_handle === definition.handle);
      if (!entry) {
        // The internal key is ours to choose: saved before the bank is registered with it.
        entry = {
          bank_handle: definition.handle,
          institution_code: definition.institutionCode,
          bank_key: '',
          internal_key: newSecret('sik_'),
          core_base_url: '',
        };
        demo.banks.push(entry);
        saveDemoFile(file, demo);
      }
      const sandbox = await startSandboxBank({
        handle: definition.handle,
        institutionCode: definition.institutionCode,
        internalKey: entry.internal_key,
        db: platform.db,
        host: platform.config.host,
        port: port(options.portBase, index),
        gatewayUrl: platform.restUrl,
        logger: options.logger.child({ service: `bank-sandbox:${definition.handle}` }),
      });
      banks.push(sandbox);
      entry.core_base_url = sandbox.url;
      if (!entry.bank_key)
        entry.bank_key = await registerBank(rest, admin, definition, sandbox, entry.internal_key, file);
      await sandbox.configureGateway({ url: platform.restUrl, bankKey: entry.bank_key });
      done(`bank ${definition.handle}`);
    }

    for (const customer of DEMO_CUSTOMERS) {
      const bank = banks.find((b) => b.handle === customer.bank)!;
      const bankKey = demo.banks.find((b) => b.bank_handle === customer.bank)!.bank_key;
      // openAccount is idempotent per customer and currency: a restart finds the same account.
      const account = await bank.openAccount({
        customerRef: customer.customerRef,
        holderName: customer.name,
        currency: DEMO_CURRENCY,
        balance: customer.balance,
      });
      await bank.setOtp(customer.customerRef, customer.otp);
      await claimAlias(rest, bankKey, customer, account.iban);
      const current = await bank.getAccount(account.iban);
      demo.customers.push({
        alias: customer.alias,
        iban: account.iban,
        bank_handle: customer.bank,
        otp: customer.otp,
        balance: Number(current?.balance ?? customer.balance),
        currency: DEMO_CURRENCY,
      });
      done(`customer ${customer.alias}`);
    }

    receiver = await startWebhookReceiver({
      host: platform.config.host,
      port: port(options.portBase, 9),
      secret: demo.merchant.webhook_secret || 'pending',
      logger: options.progress ?? options.logger,
    });
    // The shop's own account at Atlas Bank: where mandate charges are paid (settlement_iban).
    const atlas = banks.find((b) => b.handle === 'atlas')!;
    const shopAccount = await atlas.openAccount({
      customerRef: 'atlas-demo-shop',
      holderName: 'Demo Shop',
      currency: DEMO_CURRENCY,
      balance: 0,
    });
    if (!demo.merchant.merchant_id) {
      // Not idempotent: a stop in the instant between this answer and the save below leaves an
      // unused "Demo Shop" behind, and the next start registers another (harmless in a demo).
      const merchant = expectOk(
        await rest('POST', '/merchants', admin, {
          name: 'Demo Shop',
          webhook_url: receiver.url,
          mode: 'test',
          settlement_iban: shopAccount.iban,
        }),
        'POST /merchants',
      );
      demo.merchant = {
        merchant_id: merchant.merchant_id,
        api_key: merchant.api_key,
        webhook_secret: merchant.webhook_secret,
      };
    } else {
      // A receiver on a fresh port: point the merchant's webhook at it. A Demo Shop registered by
      // an earlier release has no settlement_iban (mandates need one): it gets the shop's account.
      const saved = expectOk(await rest('GET', `/merchants/${demo.merchant.merchant_id}`, admin), 'GET /merchants');
      const changes = {
        ...(options.portBase === 0 ? { webhook_url: receiver.url } : {}),
        ...(saved.settlement_iban ? {} : { settlement_iban: shopAccount.iban }),
      };
      if (Object.keys(changes).length > 0)
        expectOk(await rest('PATCH', `/merchants/${demo.merchant.merchant_id}`, admin, changes), 'PATCH /merchants');
    }
    receiver.setSecret(demo.merchant.webhook_secret);
    done('merchant');

    // The same shop in the live world: its key moves the sandbox banks' money, as a live key moves a bank's.
    if (!demo.live_merchant?.merchant_id) {
      const live = expectOk(
        await rest('POST', '/merchants', admin, {
          name: 'Demo Shop (live)',
          mode: 'live',
          settlement_iban: shopAccount.iban,
        }),
        'POST /merchants (live)',
      );
      demo.live_merchant = {
        merchant_id: live.merchant_id,
        api_key: live.api_key,
        webhook_secret: live.webhook_secret,
      };
    }
    done('live merchant');

    if (!demo.tpp.tpp_id) {
      const tpp = expectOk(
        await rest('POST', '/ob/tpps', admin, {
          name: 'Demo Budgeting App',
          mode: 'live',
          redirect_uris: [`${platform.restUrl}/demo/callback`],
        }),
        'POST /ob/tpps',
      );
      demo.tpp = { tpp_id: tpp.tpp_id, tpp_access_token: tpp.tpp_access_token };
    }
    done('tpp');

    if (!demo.fapi2_tpp?.tpp_id) {
      // The key is ours to make: saved before its public half is registered, as a bank's internal
      // key is. A stop between the answer and the save registers another TPP next time (harmless).
      if (!demo.fapi2_tpp) {
        demo.fapi2_tpp = { tpp_id: '', ...newDemoKey() };
        saveDemoFile(file, demo);
      }
      const { private_jwk: jwk } = demo.fapi2_tpp;
      const tpp = expectOk(
        await rest('POST', '/ob/tpps', admin, {
          name: 'Demo Budgeting App (FAPI 2.0)',
          mode: 'live',
          redirect_uris: [`${platform.restUrl}/demo/callback`],
          security_profile: 'fapi2',
          jwks: { keys: [{ kty: jwk.kty, crv: jwk.crv, x: jwk.x, y: jwk.y, kid: jwk.kid, alg: 'ES256', use: 'sig' }] },
        }),
        'POST /ob/tpps (fapi2)',
      );
      demo.fapi2_tpp.tpp_id = tpp.tpp_id;
    }
    demo.seed_complete = true;
    done('fapi2 tpp');
  } catch (error) {
    await stop().catch(() => undefined);
    throw error;
  }
  // GraphiQL opens ready to query as the demo merchant (dev mode only: the platform ignores it in production).
  platform.prefillGraphiQL?.({ Authorization: `Bearer ${demo.merchant.api_key}` });
  platform.readiness?.release(DEMO_GATE);
  return { file: demo, reused, banks, receiver, stop };
}

/** A fresh ES256 signing key for the fapi2 demo TPP (node:crypto; the platform only ever sees its public half). */
function newDemoKey(): { kid: string; private_jwk: DemoPrivateJwk } {
  const kid = `demo-fapi2-${randomBytes(4).toString('hex')}`;
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const jwk = privateKey.export({ format: 'jwk' });
  return {
    kid,
    private_jwk: { kty: jwk.kty!, crv: jwk.crv!, x: jwk.x!, y: jwk.y!, d: jwk.d!, kid, alg: 'ES256' },
  };
}

/** Registers a demo bank and returns its key, which the API shows this once. */
async function registerBank(
  rest: Rest,
  admin: Record<string, string>,
  definition: (typeof DEMO_BANKS)[number],
  sandbox: SandboxBank,
  internalKey: string,
  file: string,
): Promise<string> {
  const settlement = await sandbox.openAccount({
    customerRef: `${definition.handle}-settlement`,
    holderName: `${definition.displayName} settlement`,
    currency: DEMO_CURRENCY,
    // Funded: a bank whose customers paid out more than they received owes its net, and a
    // settlement cycle debits it here (the sandbox refuses to take an account below zero).
    balance: DEMO_SETTLEMENT_FUNDS,
  });
  const answer = await rest('POST', '/banks', admin, {
    bank_handle: definition.handle,
    display_name: definition.displayName,
    country: 'LY',
    core_base_url: sandbox.url,
    settlement_account_iban: settlement.iban,
    contact_email: `ops@${definition.handle}.example`,
    institution_code: definition.institutionCode,
    internal_key: internalKey,
    ob_enabled: true,
    ob_scopes_supported: ['accounts:read', 'balances:read', 'transactions:read', 'payments:write'],
  });
  if (answer.status === 409) {
    // Only the bank itself can rotate its key: without the saved one the demo cannot act as it.
    throw new DemoSeedError(
      `The demo bank ${definition.handle} is registered in the embedded database, but its bank key is not in ${file} ` +
        '(a start stopped between registering the bank and saving its key, or demo.json was removed). ' +
        'The demo cannot act as that bank without it: move the data directory aside to seed the demo afresh.',
    );
  }
  return expectOk(answer, 'POST /banks').bank_key as string;
}

/** Claims a customer's alias unless an earlier start already did (it resolves to their IBAN). */
async function claimAlias(
  rest: Rest,
  bankKey: string,
  customer: (typeof DEMO_CUSTOMERS)[number],
  iban: string,
): Promise<void> {
  const resolved = await rest('GET', `/v1/identity/resolve?alias=${encodeURIComponent(customer.alias)}`, {});
  if (resolved.status === 200 && resolved.body?.iban === iban) return;
  expectOk(
    await rest(
      'POST',
      '/v1/identity/claim',
      { 'x-service-bank-key': bankKey },
      {
        npt_handle: customer.alias,
        iban,
        customer_display_name: customer.name,
        bank_customer_ref: customer.customerRef,
      },
    ),
    `claiming the alias ${customer.alias}`,
  );
}

/** The "try it" block `npm start` prints; `file`: where the demo keys were saved. */
export function tryItBlock(demo: DemoFile, file: string): string {
  const payer = demo.customers.find((c) => c.bank_handle === 'oasis')!;
  const payee = demo.customers.find((c) => c.bank_handle === 'atlas')!;
  return [
    `Demo (${file}):`,
    `  banks       ${demo.banks.map((b) => `${b.bank_handle} (${b.institution_code}) ${b.core_base_url}`).join(', ')}`,
    `  customers   ${demo.customers.map((c) => `${c.alias}@${c.bank_handle} otp ${c.otp}`).join(', ')}`,
    `  merchant    ${demo.merchant.merchant_id}  api key ${demo.merchant.api_key}  (test mode: money moves at the built-in test bank only)`,
    ...(demo.live_merchant?.api_key
      ? [
          `  live        ${demo.live_merchant.merchant_id}  api key ${demo.live_merchant.api_key}  (live: moves the sandbox banks' money)`,
        ]
      : []),
    `  tpp         ${demo.tpp.tpp_id}  (live)`,
    ...(demo.fapi2_tpp?.tpp_id
      ? [
          `  fapi2 tpp   ${demo.fapi2_tpp.tpp_id}  (live, FAPI 2.0: private_key_jwt with key ${demo.fapi2_tpp.kid}, DPoP)`,
        ]
      : []),
    '',
    'Try it: create a payment session with the test key, then open its checkout_url and pay as the test payer',
    `success@${payer.bank_handle} (OTP ${TEST_OTP}); other test payers: ${TEST_PAYERS.map((p) => `${p.name}@<bank>`).join(', ')} (docs/test-mode.md).`,
    `With the live key, pay as ${payer.alias} (OTP ${payer.otp}): the sandbox banks' balances move.`,
    `  curl -s -X POST ${demo.base_url}/payments/sessions \\`,
    `    -H 'Authorization: Bearer ${demo.merchant.api_key}' -H 'Content-Type: application/json' \\`,
    `    -d '{"amount": 12500, "currency": "LYD", "destination": {"type": "alias", "value": "${payee.alias}"}, "reference": "order-1001"}'`,
    '',
    'Open Banking: `npm run demo:open-banking` takes the demo TPP from consent to account data to revocation;',
    '`npm run demo:open-banking -- --fapi2` does it at FAPI 2.0 (PAR, private_key_jwt, DPoP-bound tokens).',
    'Mandates: `npm run demo:mandates` has a customer confirm a monthly mandate in Chromium and the shop charge it.',
    '',
  ].join('\n');
}
