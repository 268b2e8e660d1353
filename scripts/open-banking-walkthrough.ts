/**
 * `npm run demo:open-banking`: Open Banking as a TPP meets it, against a running `npm start`,
 * in the live world (the demo TPP is a live TPP: its consents read and pay at the sandbox banks),
 * with nothing registered anew: the demo TPP from `.data/demo.json` asks for a consent, a demo
 * customer approves it on the consent page in Chromium (Debian's chromium, driven by
 * playwright-core), the code is exchanged with the PKCE verifier, accounts, balances and
 * transactions are read, a refresh rotates the pair, and a DELETE kills the tokens at once.
 * Then payment orders: a second consent with payments:write pays a demo customer at the same
 * bank below the SCA exemption limit (201) and one at the other bank above it (202, the SCA page
 * in Chromium), while a subscription follows the second order and the TPP's webhook endpoint
 * (started here, its signatures verified) receives the events. Then variable recurring payments
 * (open-banking-vrp.ts): a VRP consent whose limits the consent page spells out, payments within
 * and beyond them, the usage per period, and the TPP's revocation.
 * Each step prints the request as curl would send it and what came back.
 *
 *   npm start                    (in another terminal)
 *   npm run demo:open-banking    DATA_DIR (default .data), CHROMIUM_PATH (default /usr/bin/chromium)
 *   npm run demo:open-banking -- --fapi2    the same at FAPI 2.0 with the fapi2 demo TPP (open-banking-fapi2.ts)
 */
/// <reference path="../router/src/types/ws-modules.d.ts" />
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import type { Browser } from 'playwright-core';
import { WebSocket } from 'ws';
import { hmacSha256Hex, safeEqual } from '@gateway/kernel';
import { NoFapi2TppError, runFapi2Walkthrough } from './open-banking-fapi2';
import { variableRecurringPayments, type VrpWalkResult } from './open-banking-vrp';
import { expectStatus, launchChromium, restClient, type Answer, type Send } from './support/walkthrough';

export interface WalkthroughDemo {
  base_url: string;
  /** The FAPI 2.0 demo TPP (`--fapi2`); absent in a demo file from an earlier release. */
  fapi2_tpp?: { tpp_id: string; kid: string; private_jwk: Record<string, string> };
  tpp: { tpp_id: string; tpp_access_token: string };
  banks: Array<{ bank_handle: string }>;
  customers: Array<{ alias: string; bank_handle: string; otp: string; iban: string }>;
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
  /** The two payment orders: below the SCA limit (same bank), above it (other bank). */
  orders: Array<{ id: string; created: number; status: string }>;
  /** Statuses the subscription to the second order delivered, in order. */
  subscribed: string[];
  /** Verified webhook events the TPP's endpoint received (event, and the order or consent id). */
  webhooks: Array<{ event: string; id: string }>;
  /** Part 3: variable recurring payments. */
  vrp: VrpWalkResult;
}

export interface Walk {
  base: string;
  redirectUri: string;
  send: Send;
  log: (line: string) => void;
  browser: Browser;
  tppToken: string;
}

/**
 * A consent from request to token pair: created by the TPP, approved by `customer` on the consent
 * page in Chromium, the code exchanged. `request`: another kind of consent (its path and fields).
 */
async function consentToTokens(
  walk: Walk,
  customer: WalkthroughDemo['customers'][number],
  scopes: string[],
  request: { path: string; what: string; fields: Record<string, unknown> } = {
    path: '/ob/consents',
    what: `a consent to ${scopes.join(', ')}`,
    fields: { scopes, expiry_days: 30 },
  },
) {
  const { send, log, redirectUri } = walk;
  log(`\nThe demo TPP asks for ${request.what} (PKCE S256: the verifier stays with the TPP).`);
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(12).toString('base64url');
  const consent = expectStatus(
    await send('POST', request.path, {
      headers: { authorization: `Bearer ${walk.tppToken}` },
      json: {
        bank_handle: customer.bank_handle,
        ...request.fields,
        redirect_uri: redirectUri,
        state,
        code_challenge: createHash('sha256').update(verifier).digest('base64url'),
        code_challenge_method: 'S256',
      },
    }),
    201,
    'creating the consent',
  );

  log(
    `\n${customer.alias} approves on the consent page (${consent.consent_url}) with OTP ${customer.otp}, in Chromium.`,
  );
  const context = await walk.browser.newContext({ viewport: { width: 390, height: 844 } });
  let landed: URL;
  try {
    const page = await context.newPage();
    // The TPP's side of the redirect: answered here, so the walkthrough needs no TPP server.
    await page.route(`${redirectUri}**`, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<h1>Back at the Demo Budgeting App</h1>' }),
    );
    await page.goto(`${walk.base}${new URL(consent.consent_url).pathname}`);
    await page.fill('#customer-value', customer.alias);
    await page.fill('#otp', customer.otp);
    await page.click('#approve-button');
    await page.waitForURL((url) => url.href.startsWith(redirectUri), { timeout: 30_000 });
    landed = new URL(page.url());
  } finally {
    await context.close();
  }
  const code = landed.searchParams.get('code');
  log(
    `landed on ${landed.origin}${landed.pathname} with code, consent_id ${landed.searchParams.get('consent_id')}, iss ${landed.searchParams.get('iss')}`,
  );
  if (
    !code ||
    landed.searchParams.get('state') !== state ||
    landed.searchParams.get('consent_id') !== consent.consent_id
  ) {
    throw new Error(`the redirect did not carry the code, the same state and the consent id: ${landed.search}`);
  }

  log('\nThe TPP exchanges the code with its verifier (form-encoded, no client secret).');
  const tokens = expectStatus(
    await send('POST', '/ob/token', {
      form: {
        grant_type: 'authorization_code',
        code,
        redirect_uri: redirectUri,
        consent_id: consent.consent_id,
        code_verifier: verifier,
      },
    }),
    200,
    'exchanging the code',
  );
  return {
    consentId: consent.consent_id as string,
    accessToken: tokens.access_token as string,
    refreshToken: tokens.refresh_token as string,
  };
}

/** The TPP's webhook endpoint: verifies X-Service-Signature over the raw body with the TPP's secret. */
async function startTppReceiver(log: (line: string) => void) {
  let secret = '';
  const received: Array<{ event: string; id: string }> = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks);
      if (
        !secret ||
        !safeEqual(String(request.headers['x-service-signature'] ?? ''), `sha256=${hmacSha256Hex(secret, raw)}`)
      ) {
        response.writeHead(401).end();
        return;
      }
      const envelope = JSON.parse(raw.toString('utf8')) as { event: string; data: Record<string, string> };
      const id = envelope.data.payment_order_id ?? envelope.data.consent_id ?? '';
      received.push({ event: envelope.event, id });
      log(`[demo TPP] verified webhook ${envelope.event} ${id}`);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks/tpp`,
    received,
    setSecret: (next: string) => (secret = next),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Statuses of paymentOrderUpdated(id) over graphql-ws, as a TPP's live UI would follow them. */
function followOrder(graphqlUrl: string, tppToken: string, id: string) {
  const statuses: string[] = [];
  const client = createClient({
    url: graphqlUrl.replace(/^http/, 'ws'),
    webSocketImpl: WebSocket,
    connectionParams: { authorization: `Bearer ${tppToken}` },
    retryAttempts: 0,
  });
  const done = new Promise<void>((resolve, reject) => {
    client.subscribe<{ paymentOrderUpdated: { status: string } }>(
      { query: 'subscription($id: ID!) { paymentOrderUpdated(id: $id) { status } }', variables: { id } },
      {
        next: (message) => message.data && statuses.push(message.data.paymentOrderUpdated.status),
        error: reject,
        complete: resolve,
      },
    );
  });
  return { statuses, done, dispose: () => client.dispose() };
}

export async function runOpenBankingWalkthrough(options: WalkthroughOptions): Promise<WalkthroughResult> {
  const base = (options.baseUrl ?? options.demo.base_url).replace(/\/+$/, '');
  const log = options.log ?? ((line: string) => console.log(line));
  const send = restClient(base, log);
  const browser = await launchChromium(options.chromiumPath);
  const walk: Walk = {
    base,
    redirectUri: options.redirectUri ?? `${options.demo.base_url.replace(/\/+$/, '')}/demo/callback`,
    send,
    log,
    browser,
    tppToken: options.demo.tpp.tpp_access_token,
  };
  try {
    return {
      ...(await accountInformation(walk, options.demo)),
      ...(await paymentOrders(walk, options.demo)),
      vrp: await variableRecurringPayments(walk, options.demo, (customer, request) =>
        consentToTokens(walk, customer, [], request),
      ),
    };
  } finally {
    await browser.close();
  }
}

/** Part 1: consent, account data, refresh, DELETE. */
async function accountInformation(walk: Walk, demo: WalkthroughDemo) {
  const { send, log } = walk;
  log('1. Account information.');
  const grant = await consentToTokens(walk, demo.customers[0]!, [
    'accounts:read',
    'balances:read',
    'transactions:read',
  ]);
  const data = (token: string) => ({ authorization: `Bearer ${token}`, 'x-consent-id': grant.consentId });

  log('\nAccount information with the access token and X-Consent-Id.');
  const accounts = expectStatus(
    await send('GET', '/ob/accounts', { headers: data(grant.accessToken) }),
    200,
    'listing accounts',
  ).accounts;
  const accountId = accounts[0].account_id as string;
  const balances = expectStatus(
    await send('GET', `/ob/accounts/${accountId}/balances`, { headers: data(grant.accessToken) }),
    200,
    'reading balances',
  );
  const transactions = expectStatus(
    await send('GET', `/ob/accounts/${accountId}/transactions?count=5`, { headers: data(grant.accessToken) }),
    200,
    'reading transactions',
  );

  log('\nA refresh rotates the pair: the old access token stops working.');
  const second = expectStatus(
    await send('POST', '/ob/token', {
      form: { grant_type: 'refresh_token', refresh_token: grant.refreshToken, consent_id: grant.consentId },
    }),
    200,
    'refreshing',
  );
  const refusals: WalkthroughResult['refusals'] = {};
  const refused = (name: string, answer: Answer) =>
    void (refusals[name] = { status: answer.status, code: answer.body?.error?.code });
  refused('rotated access token', await send('GET', '/ob/accounts', { headers: data(grant.accessToken) }));
  expectStatus(
    await send('GET', `/ob/accounts/${accountId}/balances`, { headers: data(second.access_token) }),
    200,
    'reading with the new token',
  );

  log('\nThe TPP deletes the consent: every token of it stops at once.');
  expectStatus(
    await send('DELETE', `/ob/consents/${grant.consentId}`, { headers: data(second.access_token) }),
    204,
    'deleting the consent',
  );
  refused('access token after DELETE', await send('GET', '/ob/accounts', { headers: data(second.access_token) }));
  refused(
    'refresh token after DELETE',
    await send('POST', '/ob/token', {
      form: { grant_type: 'refresh_token', refresh_token: second.refresh_token, consent_id: grant.consentId },
    }),
  );
  return { consentId: grant.consentId, accounts, balances, transactions, refusals };
}

/** Part 2: webhooks on, a consent with payments:write, one order under the SCA limit and one over it. */
async function paymentOrders(walk: Walk, demo: WalkthroughDemo) {
  const { send, log } = walk;
  const payer = demo.customers[0]!;
  const sameBank = demo.customers.find((c) => c.bank_handle === payer.bank_handle && c.alias !== payer.alias)!;
  const otherBank = demo.customers.find((c) => c.bank_handle !== payer.bank_handle)!;
  const tppAuth = { authorization: `Bearer ${walk.tppToken}` };

  log(
    '\n2. Payment orders. The TPP points its webhooks at an endpoint of its own and takes a new webhook secret (shown once).',
  );
  const receiver = await startTppReceiver(log);
  try {
    expectStatus(
      await send('PATCH', `/ob/tpps/${demo.tpp.tpp_id}`, { headers: tppAuth, json: { webhook_url: receiver.url } }),
      200,
      'setting the webhook URL',
    );
    receiver.setSecret(
      expectStatus(
        await send('POST', `/ob/tpps/${demo.tpp.tpp_id}/rotate-webhook-secret`, { headers: tppAuth }),
        200,
        'rotating the webhook secret',
      ).webhook_secret,
    );

    const grant = await consentToTokens(walk, payer, ['accounts:read', 'payments:write']);
    const data = { authorization: `Bearer ${grant.accessToken}`, 'x-consent-id': grant.consentId };
    const source = expectStatus(await send('GET', '/ob/accounts', { headers: data }), 200, 'listing accounts')
      .accounts[0].account_id as string;
    const order = (to: string, amount: number, description: string) =>
      send('POST', '/ob/payment-orders', {
        headers: data,
        json: {
          source_account_id: source,
          destination: { type: 'iban', value: to },
          amount,
          currency: 'LYD',
          description,
        },
      });
    const settles = async (id: string): Promise<string> => {
      for (let i = 0; i < 200; i += 1) {
        const status = expectStatus(
          await send('GET', `/ob/payment-orders/${id}`, { headers: data }),
          200,
          'reading the order',
        ).status as string;
        if (['COMPLETED', 'FAILED', 'REJECTED'].includes(status)) return status;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`payment order ${id} did not finish`);
    };

    log(`\nBelow the bank's SCA exemption limit, to ${sameBank.alias} at the same bank: executed at once (201).`);
    const small = expectStatus(await order(sameBank.iban, 2_500, 'Lunch'), 201, 'the order below the limit');
    const smallStatus = await settles(small.payment_order_id);

    log(
      `\nAbove the limit, to ${otherBank.alias} at another bank: 202 PENDING_SCA, nothing moves before the customer's SCA.`,
    );
    const large = expectStatus(await order(otherBank.iban, 150_000, 'New sofa'), 202, 'the order above the limit');
    const followed = followOrder(`${walk.base}/graphql`, walk.tppToken, large.payment_order_id);
    log(
      `${payer.alias} authorises on the SCA page (${large.sca_url}) with OTP ${payer.otp}, in Chromium; a subscription follows the order.`,
    );
    const context = await walk.browser.newContext({ viewport: { width: 390, height: 844 } });
    try {
      const page = await context.newPage();
      await page.goto(`${walk.base}${new URL(large.sca_url).pathname}`);
      await page.fill('#otp', payer.otp);
      await page.click('#authorize-button');
      await page.waitForSelector('#closed');
    } finally {
      await context.close();
    }
    const largeStatus = await settles(large.payment_order_id);
    await Promise.race([followed.done, new Promise((resolve) => setTimeout(resolve, 10_000))]);
    await followed.dispose();
    log(`subscription saw: ${followed.statuses.join(' -> ')}`);

    // Webhooks go out after the outcome; give them a moment.
    const wanted = ['payment_order.completed', 'payment_order.pending_sca'];
    for (
      let i = 0;
      i < 100 &&
      !wanted.every((event) => receiver.received.some((r) => r.event === event && r.id === large.payment_order_id));
      i += 1
    ) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expectStatus(
      await send('PATCH', `/ob/tpps/${demo.tpp.tpp_id}`, { headers: tppAuth, json: { webhook_url: null } }),
      200,
      'removing the walkthrough webhook URL',
    );
    return {
      orders: [
        { id: small.payment_order_id as string, created: 201, status: smallStatus },
        { id: large.payment_order_id as string, created: 202, status: largeStatus },
      ],
      subscribed: followed.statuses,
      webhooks: [...receiver.received],
    };
  } finally {
    await receiver.stop();
  }
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
  const stopped = (error: unknown) => {
    if (error instanceof NoFapi2TppError) {
      console.error(error.message);
      process.exit(2);
    }
    console.error(`\nThe walkthrough stopped: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  };
  if (process.argv.includes('--fapi2')) {
    runFapi2Walkthrough({ demo, file }).then((result) => {
      console.log(
        `\nDone at FAPI 2.0: TPP ${result.tppId}, consent ${result.consentId}, token_type ${result.tokenTypes.code}, ` +
          `${result.accounts.length} account(s) read; refused: ${JSON.stringify(result.refusals)}`,
      );
    }, stopped);
  } else {
    runOpenBankingWalkthrough({ demo }).then((result) => {
      console.log(
        `\nDone: consent ${result.consentId}, ${result.accounts.length} account(s) read; refused afterwards: ${JSON.stringify(result.refusals)}`,
      );
      console.log(
        `Payment orders: ${result.orders.map((o) => `${o.id} ${o.created} -> ${o.status}`).join(', ')}; webhooks verified: ${result.webhooks.length}`,
      );
      console.log(
        `VRP: consent ${result.vrp.consentId}, payments ${result.vrp.payments.map((p) => `${p.amount} -> ${p.status}`).join(', ')}, ` +
          `refused ${result.vrp.refused.code}; revoked: ${result.vrp.afterRevocation}`,
      );
    }, stopped);
  }
}
