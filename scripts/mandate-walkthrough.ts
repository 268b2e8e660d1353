/**
 * `npm run demo:mandates`: recurring mandates as a merchant meets them, against a running
 * `npm start`, with the demo data only: the Demo Shop asks Amina (Oasis Bank) for a monthly
 * mandate (in test mode: the Demo Shop holds a test key, so money moves at the built-in test bank
 * only), she confirms it on its page in Chromium with the test OTP, the shop charges it (paid into
 * its account at Atlas Bank: a cross-bank movement), a second charge in the same month is refused,
 * the mandate's test clock moves a month on and the next charge goes through. Then the operator
 * runs a settlement cycle: positions sum to zero per currency, and each bank's settlement account
 * moved once by its net amount. Each step prints the request as curl would send it.
 *
 *   npm start                (in another terminal)
 *   npm run demo:mandates    DATA_DIR (default .data), CHROMIUM_PATH (default /usr/bin/chromium)
 */
import { TEST_OTP } from '@gateway/bank-sandbox';
import { formatMoney } from '@gateway/kernel';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expectStatus, launchChromium, restClient, type Send } from './support/walkthrough';

export interface MandateWalkthroughDemo {
  base_url: string;
  admin_key: string;
  merchant: { merchant_id: string; api_key: string };
  banks: Array<{ bank_handle: string; internal_key: string; core_base_url: string }>;
  customers: Array<{ alias: string; bank_handle: string; otp: string; iban: string }>;
}

export interface MandateWalkthroughOptions {
  demo: MandateWalkthroughDemo;
  /** Where the REST API answers; default the demo file's base_url. */
  baseUrl?: string;
  chromiumPath?: string;
  log?: (line: string) => void;
}

/** What the walkthrough saw, for its test. */
export interface MandateWalkthroughResult {
  mandateId: string;
  /** The page's verdict after the OTP. */
  pageStatus: string | null;
  charges: Array<{ id: string; status: string; periodStart: string }>;
  /** The refusal of the second charge in one period. */
  refusal: { status: number; code: string };
  settlement: { cycleId: string; positions: Array<{ bank: string; currency: string; net: number; moved: number }> };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A charge's final status (cross bank: once the creditor bank confirmed the rail credit). */
async function settled(
  send: Send,
  auth: Record<string, string>,
  mandateId: string,
  chargeId: string,
): Promise<{ status: string; period_start: string }> {
  for (let i = 0; i < 150; i += 1) {
    const list = expectStatus(
      await send('GET', `/recurring/mandates/${mandateId}/charges`, { headers: auth }),
      200,
      'listing the charges',
    );
    const charge = list.charges.find((c: { charge_id: string }) => c.charge_id === chargeId);
    if (charge && charge.status !== 'PROCESSING') return charge;
    await sleep(200);
  }
  throw new Error(`charge ${chargeId} did not finish in 30 s`);
}

export async function runMandateWalkthrough(options: MandateWalkthroughOptions): Promise<MandateWalkthroughResult> {
  const { demo } = options;
  const base = (options.baseUrl ?? demo.base_url).replace(/\/+$/, '');
  const log = options.log ?? ((line: string) => console.log(line));
  const send = restClient(base, log);
  const auth = { authorization: `Bearer ${demo.merchant.api_key}` };
  const admin = { 'x-service-admin-key': demo.admin_key };
  const customer = demo.customers.find((c) => c.bank_handle === 'oasis') ?? demo.customers[0]!;

  log('\n1. The shop asks the customer for a monthly mandate (up to 15.000 LYD a month, from today).');
  const created = expectStatus(
    await send('POST', '/recurring/mandates', {
      headers: { ...auth, 'idempotency-key': `demo-${randomBytes(6).toString('hex')}` },
      json: {
        customer_alias: customer.alias,
        amount: 15_000,
        currency: 'LYD',
        interval: 'monthly',
        description: 'Demo Shop monthly box',
        start_date: new Date().toISOString().slice(0, 10),
      },
    }),
    201,
    'creating the mandate',
  );
  const mandateId = created.mandate_id as string;

  log(
    '   (Test mode: the demo shop holds a test key, so every core call below goes to the built-in test bank; no sandbox balance moves.)',
  );

  log(
    `\n2. ${customer.alias} opens confirm_url in a browser and confirms with the test bank's OTP (${TEST_OTP}; her own OTP is for live payments).`,
  );
  const browser = await launchChromium(options.chromiumPath);
  let pageStatus: string | null;
  try {
    const page = await browser.newPage();
    await page.goto(`${base}${new URL(created.confirm_url).pathname}`);
    log(`   page: ${(await page.textContent('#merchant-name')) ?? ''} — ${(await page.textContent('#amount')) ?? ''}`);
    await page.fill('#otp', TEST_OTP);
    await Promise.all([page.waitForURL(`${base}/mandates/${mandateId}/confirm`), page.click('#confirm-button')]);
    pageStatus = await page.getAttribute('#closed', 'data-status');
    log(`   page after the OTP: ${(await page.textContent('#closed-text')) ?? ''}`);
  } finally {
    await browser.close();
  }

  log('\n3. The shop charges this month (the money goes from Oasis Bank to its account at Atlas Bank: the rail).');
  const first = expectStatus(
    await send('POST', `/recurring/mandates/${mandateId}/charge`, {
      headers: auth,
      json: { amount: 12_500, reference: 'box-month-1' },
    }),
    201,
    'the first charge',
  );
  const firstDone = await settled(send, auth, mandateId, first.charge_id);

  log('\n4. A second charge in the same month is refused.');
  const again = await send('POST', `/recurring/mandates/${mandateId}/charge`, {
    headers: auth,
    json: { amount: 1_000, reference: 'box-extra' },
  });

  log("\n5. Test mode: the mandate's clock moves a month on, and next month's charge goes through.");
  expectStatus(
    await send('POST', `/recurring/mandates/${mandateId}/test-clock/advance`, { headers: auth, json: { days: 31 } }),
    200,
    'advancing the test clock',
  );
  const second = expectStatus(
    await send('POST', `/recurring/mandates/${mandateId}/charge`, {
      headers: auth,
      json: { amount: 12_500, reference: 'box-month-2' },
    }),
    201,
    'the second charge',
  );
  const secondDone = await settled(send, auth, mandateId, second.charge_id);

  log(
    "\n6. The operator settles the test world between the banks (a test cycle): positions sum to zero, booked at the banks' test cores; the live settlement accounts do not move.",
  );
  const settlementIbans = new Map<string, string>();
  for (const bank of demo.banks)
    settlementIbans.set(
      bank.bank_handle,
      expectStatus(await send('GET', `/banks/${bank.bank_handle}`, { headers: admin }), 200, 'a bank record')
        .settlement_account_iban,
    );
  const balance = async (handle: string) => {
    const bank = demo.banks.find((b) => b.bank_handle === handle)!;
    const answer = await fetch(`${bank.core_base_url}/accounts/${settlementIbans.get(handle)}`, {
      headers: { 'x-service-internal-key': bank.internal_key },
    });
    return Number(((await answer.json()) as { balance: number }).balance);
  };
  const before = new Map<string, number>();
  for (const bank of demo.banks) before.set(bank.bank_handle, await balance(bank.bank_handle));
  const cycle = expectStatus(
    await send('POST', '/settlement/cycles', { headers: admin, json: { mode: 'test' } }),
    201,
    'the test settlement cycle',
  );
  const positions = [];
  for (const position of cycle.positions as Array<{ bank_handle: string; currency: string; net_amount: number }>) {
    positions.push({
      bank: position.bank_handle,
      currency: position.currency,
      net: position.net_amount,
      moved: (await balance(position.bank_handle)) - before.get(position.bank_handle)!,
    });
  }
  log(
    `   ${positions.map((p) => `${p.bank} net ${formatMoney(p.net, p.currency)}, live settlement account moved ${formatMoney(p.moved, p.currency)}`).join('; ')}`,
  );

  return {
    mandateId,
    pageStatus,
    charges: [
      { id: first.charge_id, status: firstDone.status, periodStart: firstDone.period_start },
      { id: second.charge_id, status: secondDone.status, periodStart: secondDone.period_start },
    ],
    refusal: { status: again.status, code: again.body?.error?.code },
    settlement: { cycleId: cycle.cycle_id, positions },
  };
}

if (require.main === module) {
  const file = join(process.env.DATA_DIR ?? '.data', 'demo.json');
  let demo: MandateWalkthroughDemo;
  try {
    demo = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    console.error(`No demo data at ${file}: start the platform first (npm start), then run this again.`);
    process.exit(2);
  }
  runMandateWalkthrough({ demo }).then(
    (result) => {
      console.log(
        `\nDone: mandate ${result.mandateId} ${result.pageStatus}; charges ${result.charges.map((c) => `${c.periodStart} ${c.status}`).join(', ')}; same-month charge refused with ${result.refusal.status} ${result.refusal.code}`,
      );
      console.log(
        `Settlement ${result.settlement.cycleId}: ${result.settlement.positions.map((p) => `${p.bank} ${p.net}`).join(', ')}`,
      );
    },
    (error) => {
      console.error(`\nThe walkthrough stopped: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
