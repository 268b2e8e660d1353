import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startSandboxBank, type SandboxBank } from '@gateway/bank-sandbox';
import { newSecret, type Logger } from '@gateway/kernel';
import type { Platform } from '../platform';
import { DEMO_BANKS, DEMO_CURRENCY, DEMO_CUSTOMERS, type DemoFile } from './demo-data';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';

export interface DemoOptions {
  /** Sandbox banks listen on portBase, portBase+1; the webhook receiver on portBase+9 (0: any free port). */
  portBase: number;
  logger: Logger;
}

export interface Demo {
  file: DemoFile;
  reused: boolean;
  banks: SandboxBank[];
  receiver: WebhookReceiver;
  stop(): Promise<void>;
}

type Rest = (method: string, path: string, headers: Record<string, string>, body?: unknown) => Promise<any>;

function restClient(baseUrl: string): Rest {
  return async (method, path, headers, body) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`demo setup: ${method} ${path} answered ${response.status} ${text}`);
    return text ? JSON.parse(text) : undefined;
  };
}

const port = (base: number, offset: number) => (base === 0 ? 0 : base + offset);

/**
 * Starts the sandbox banks and seeds the demo through the public REST API, exactly as a bank and
 * an operator would. A restart finds `.data/demo.json` still valid and reuses it.
 */
export async function startDemo(platform: Platform, options: DemoOptions): Promise<Demo> {
  const file = join(platform.config.dataDir, 'demo.json');
  const rest = restClient(platform.restUrl);
  const admin = { 'x-service-admin-key': platform.adminKey };
  const previous = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as DemoFile) : undefined;
  const reusable = previous ? await stillRegistered(rest, previous) : false;

  const banks: SandboxBank[] = [];
  const demo: DemoFile = {
    admin_key: platform.adminKey,
    base_url: platform.restUrl,
    graphql_url: `${platform.restUrl}/graphql`,
    merchant: previous?.merchant ?? { merchant_id: '', api_key: '', webhook_secret: '' },
    tpp: previous?.tpp ?? { tpp_id: '', tpp_access_token: '' },
    banks: [],
    customers: [],
  };

  for (const [index, definition] of DEMO_BANKS.entries()) {
    const saved = reusable ? previous!.banks.find((b) => b.bank_handle === definition.handle) : undefined;
    const internalKey = saved?.internal_key ?? newSecret('sik_');
    const sandbox = await startSandboxBank({
      handle: definition.handle,
      institutionCode: definition.institutionCode,
      internalKey,
      db: platform.db,
      host: platform.config.host,
      port: port(options.portBase, index),
      gatewayUrl: platform.restUrl,
      logger: options.logger.child({ service: `bank-sandbox:${definition.handle}` }),
    });
    banks.push(sandbox);
    let bankKey = saved?.bank_key;
    if (!bankKey) {
      const settlement = await sandbox.openAccount({ customerRef: `${definition.handle}-settlement`, holderName: `${definition.displayName} settlement`, currency: DEMO_CURRENCY, balance: 0 });
      const registered = await rest('POST', '/banks', admin, {
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
      bankKey = registered.bank_key as string;
    }
    await sandbox.configureGateway({ url: platform.restUrl, bankKey });
    demo.banks.push({ bank_handle: definition.handle, institution_code: definition.institutionCode, bank_key: bankKey, internal_key: internalKey, core_base_url: sandbox.url });
  }

  for (const customer of DEMO_CUSTOMERS) {
    const bank = banks.find((b) => b.handle === customer.bank)!;
    const bankKey = demo.banks.find((b) => b.bank_handle === customer.bank)!.bank_key;
    // openAccount is idempotent per customer and currency: a restart finds the same account.
    const account = await bank.openAccount({ customerRef: customer.customerRef, holderName: customer.name, currency: DEMO_CURRENCY, balance: customer.balance });
    await bank.setOtp(customer.customerRef, customer.otp);
    if (!reusable) {
      await rest('POST', '/v1/identity/claim', { 'x-service-bank-key': bankKey }, {
        npt_handle: customer.alias,
        iban: account.iban,
        customer_display_name: customer.name,
        bank_customer_ref: customer.customerRef,
      });
    }
    const current = await bank.getAccount(account.iban);
    demo.customers.push({ alias: customer.alias, iban: account.iban, bank_handle: customer.bank, otp: customer.otp, balance: Number(current?.balance ?? customer.balance), currency: DEMO_CURRENCY });
  }

  const receiver = await startWebhookReceiver({ host: platform.config.host, port: port(options.portBase, 9), secret: demo.merchant.webhook_secret || 'pending', logger: options.logger });
  if (!reusable) {
    const merchant = await rest('POST', '/merchants', admin, { name: 'Demo Shop', webhook_url: receiver.url, mode: 'test' });
    demo.merchant = { merchant_id: merchant.merchant_id, api_key: merchant.api_key, webhook_secret: merchant.webhook_secret };
    const tpp = await rest('POST', '/ob/tpps', admin, { name: 'Demo Budgeting App', redirect_uris: [`${platform.restUrl}/demo/callback`] });
    demo.tpp = { tpp_id: tpp.tpp_id, tpp_access_token: tpp.tpp_access_token };
  } else if (options.portBase === 0) {
    // A receiver on a fresh port: point the merchant's webhook at it.
    await rest('PATCH', `/merchants/${demo.merchant.merchant_id}`, admin, { webhook_url: receiver.url });
  }
  receiver.setSecret(demo.merchant.webhook_secret);
  writeFileSync(file, `${JSON.stringify(demo, null, 2)}\n`, { mode: 0o600 });

  return {
    file: demo,
    reused: reusable,
    banks,
    receiver,
    async stop() {
      await receiver.stop();
      for (const bank of banks) await bank.stop();
    },
  };
}

/** demo.json is reusable when its first bank key still opens the bank's record (same database). */
async function stillRegistered(rest: Rest, demo: DemoFile): Promise<boolean> {
  const bank = demo.banks[0];
  if (!bank || demo.banks.length !== DEMO_BANKS.length || !demo.merchant.api_key) return false;
  return rest('GET', `/banks/${bank.bank_handle}`, { 'x-service-bank-key': bank.bank_key }).then(
    () => true,
    () => false,
  );
}

/** The "try it" block `npm start` prints. */
export function tryItBlock(demo: DemoFile): string {
  const payer = demo.customers.find((c) => c.bank_handle === 'oasis')!;
  const payee = demo.customers.find((c) => c.bank_handle === 'atlas')!;
  return [
    'Demo (.data/demo.json):',
    `  banks       ${demo.banks.map((b) => `${b.bank_handle} (${b.institution_code}) ${b.core_base_url}`).join(', ')}`,
    `  customers   ${demo.customers.map((c) => `${c.alias}@${c.bank_handle} otp ${c.otp}`).join(', ')}`,
    `  merchant    ${demo.merchant.merchant_id}  api key ${demo.merchant.api_key}`,
    `  tpp         ${demo.tpp.tpp_id}`,
    '',
    'Try it: create a payment session, then open its checkout_url and pay as',
    `${payer.alias} (OTP ${payer.otp}):`,
    `  curl -s -X POST ${demo.base_url}/payments/sessions \\`,
    `    -H 'Authorization: Bearer ${demo.merchant.api_key}' -H 'Content-Type: application/json' \\`,
    `    -d '{"amount": 12500, "currency": "LYD", "destination": {"type": "alias", "value": "${payee.alias}"}, "reference": "order-1001"}'`,
    '',
  ].join('\n');
}
