/**
 * `npm run demo:open-banking`: Open Banking as a TPP meets it, against a running `npm start`,
 * with nothing registered anew: the demo TPP from `.data/demo.json` asks for a consent, a demo
 * customer approves it on the consent page in Chromium (Debian's chromium, driven by
 * playwright-core), the code is exchanged with the PKCE verifier, accounts, balances and
 * transactions are read, a refresh rotates the pair, and a DELETE kills the tokens at once.
 * Each step prints the request as curl would send it and what came back.
 *
 *   npm start                    (in another terminal)
 *   npm run demo:open-banking    DATA_DIR (default .data), CHROMIUM_PATH (default /usr/bin/chromium)
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

export interface WalkthroughDemo {
  base_url: string;
  tpp: { tpp_id: string; tpp_access_token: string };
  banks: Array<{ bank_handle: string }>;
  customers: Array<{ alias: string; bank_handle: string; otp: string }>;
}

export interface WalkthroughOptions {
  demo: WalkthroughDemo;
  /** Where the REST API answers; default the demo file's base_url. */
  baseUrl?: string;
  /** The TPP's registered redirect URI (the demo TPP registered `{base_url}/demo/callback`). */
  redirectUri?: string;
  chromiumPath?: string;
  log?: (line: string) => void;
}

/** What the walkthrough saw, for its test. */
export interface WalkthroughResult {
  consentId: string;
  accounts: Array<Record<string, unknown>>;
  balances: Record<string, unknown>;
  transactions: Record<string, unknown>;
  /** Status codes of the checks that must refuse: the rotated-out access token, and every token after DELETE. */
  refusals: Record<string, { status: number; code: string }>;
}

interface Answer {
  status: number;
  body: any;
  headers: Headers;
}

export async function runOpenBankingWalkthrough(options: WalkthroughOptions): Promise<WalkthroughResult> {
  const base = (options.baseUrl ?? options.demo.base_url).replace(/\/+$/, '');
  const redirectUri = options.redirectUri ?? `${options.demo.base_url.replace(/\/+$/, '')}/demo/callback`;
  const log = options.log ?? ((line: string) => console.log(line));
  const customer = options.demo.customers[0]!;
  const tppToken = options.demo.tpp.tpp_access_token;

  const send = async (method: string, path: string, init: { headers?: Record<string, string>; json?: unknown; form?: Record<string, string> } = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...init.headers };
    let body: string | undefined;
    if (init.json !== undefined) [headers['content-type'], body] = ['application/json', JSON.stringify(init.json)];
    if (init.form !== undefined) [headers['content-type'], body] = ['application/x-www-form-urlencoded', new URLSearchParams(init.form).toString()];
    const shown = Object.entries(headers).map(([name, value]) => ` -H '${name}: ${value}'`);
    log(`\n$ curl -s -X ${method} ${base}${path}${shown.join('')}${body ? ` -d '${body}'` : ''}`);
    const response = await fetch(`${base}${path}`, { method, headers, ...(body ? { body } : {}) });
    const text = await response.text();
    const parsed = text ? JSON.parse(text) : undefined;
    log(`${response.status} ${text ? JSON.stringify(parsed, null, 2) : ''}`);
    return { status: response.status, body: parsed, headers: response.headers };
  };
  const expectStatus = (answer: Answer, status: number, what: string): any => {
    if (answer.status !== status) throw new Error(`${what}: expected ${status}, got ${answer.status} ${JSON.stringify(answer.body)}`);
    return answer.body;
  };

  log('1. The demo TPP asks for a consent (PKCE S256: the verifier stays with the TPP).');
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(12).toString('base64url');
  const consent = expectStatus(
    await send('POST', '/ob/consents', {
      headers: { authorization: `Bearer ${tppToken}` },
      json: {
        bank_handle: customer.bank_handle,
        scopes: ['accounts:read', 'balances:read', 'transactions:read'],
        redirect_uri: redirectUri,
        state,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
        expiry_days: 30,
      },
    }),
    201,
    'creating the consent',
  );

  log(`\n2. ${customer.alias} approves on the consent page (${consent.consent_url}) with OTP ${customer.otp}, in Chromium.`);
  const consentPage = `${base}${new URL(consent.consent_url).pathname}`;
  const browser = await chromium.launch({
    executablePath: options.chromiumPath ?? process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  let landed: URL;
  try {
    const page = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    // The TPP's side of the redirect: answered here, so the walkthrough needs no TPP server.
    await page.route(`${redirectUri}**`, (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Back at the Demo Budgeting App</h1>' }));
    await page.goto(consentPage);
    await page.fill('#customer-value', customer.alias);
    await page.fill('#otp', customer.otp);
    await page.click('#approve-button');
    await page.waitForURL((url) => url.href.startsWith(redirectUri), { timeout: 30_000 });
    landed = new URL(page.url());
  } finally {
    await browser.close();
  }
  const code = landed.searchParams.get('code');
  log(`landed on ${landed.origin}${landed.pathname} with code, consent_id ${landed.searchParams.get('consent_id')}, iss ${landed.searchParams.get('iss')}`);
  if (!code || landed.searchParams.get('state') !== state || landed.searchParams.get('consent_id') !== consent.consent_id) {
    throw new Error(`the redirect did not carry the code, the same state and the consent id: ${landed.search}`);
  }

  log('\n3. The TPP exchanges the code with its verifier (form-encoded, no client secret).');
  const first = expectStatus(
    await send('POST', '/ob/token', { form: { grant_type: 'authorization_code', code, redirect_uri: redirectUri, consent_id: consent.consent_id, code_verifier: verifier } }),
    200,
    'exchanging the code',
  );

  const data = (token: string) => ({ authorization: `Bearer ${token}`, 'x-consent-id': consent.consent_id });
  log('\n4. Account information with the access token and X-Consent-Id.');
  const accounts = expectStatus(await send('GET', '/ob/accounts', { headers: data(first.access_token) }), 200, 'listing accounts').accounts;
  const accountId = accounts[0].account_id as string;
  const balances = expectStatus(await send('GET', `/ob/accounts/${accountId}/balances`, { headers: data(first.access_token) }), 200, 'reading balances');
  const transactions = expectStatus(await send('GET', `/ob/accounts/${accountId}/transactions?count=5`, { headers: data(first.access_token) }), 200, 'reading transactions');

  log('\n5. A refresh rotates the pair: the old access token stops working.');
  const second = expectStatus(
    await send('POST', '/ob/token', { form: { grant_type: 'refresh_token', refresh_token: first.refresh_token, consent_id: consent.consent_id } }),
    200,
    'refreshing',
  );
  const refusals: WalkthroughResult['refusals'] = {};
  const refused = async (name: string, answer: Answer) => {
    refusals[name] = { status: answer.status, code: answer.body?.error?.code };
  };
  await refused('rotated access token', await send('GET', '/ob/accounts', { headers: data(first.access_token) }));
  expectStatus(await send('GET', `/ob/accounts/${accountId}/balances`, { headers: data(second.access_token) }), 200, 'reading with the new token');

  log('\n6. The TPP deletes the consent: every token of it stops at once.');
  expectStatus(await send('DELETE', `/ob/consents/${consent.consent_id}`, { headers: data(second.access_token) }), 204, 'deleting the consent');
  await refused('access token after DELETE', await send('GET', '/ob/accounts', { headers: data(second.access_token) }));
  await refused(
    'refresh token after DELETE',
    await send('POST', '/ob/token', { form: { grant_type: 'refresh_token', refresh_token: second.refresh_token, consent_id: consent.consent_id } }),
  );
  return { consentId: consent.consent_id, accounts, balances, transactions, refusals };
}

if (require.main === module) {
  const file = join(process.env.DATA_DIR ?? '.data', 'demo.json');
  let demo: WalkthroughDemo;
  try {
    demo = JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    console.error(`No demo data at ${file}: start the platform first (npm start), then run this again.`);
    process.exit(2);
  }
  runOpenBankingWalkthrough({ demo }).then(
    (result) => {
      console.log(`\nDone: consent ${result.consentId}, ${result.accounts.length} account(s) read; refused afterwards: ${JSON.stringify(result.refusals)}`);
    },
    (error) => {
      console.error(`\nThe walkthrough stopped: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
