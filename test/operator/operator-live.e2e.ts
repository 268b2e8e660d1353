/// <reference path="../../router/src/types/ws-modules.d.ts" />
import { createClient } from 'graphql-ws';
import { WebSocket } from 'ws';
import { approveConsent, createConsent, enableOpenBanking } from '../support/consent-flow';
import { bearer, FAST_ENGINE, startPaymentBank, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { subscribe, wsUrl, type SubscriptionRecord } from '../support/subscriptions';
import { admin } from '../settlement/support';

const POSITIONS = `subscription Live($handle: String!) {
  bankPositionsUpdated(handle: $handle) { currency livemode netDebitCap position }
}`;
const lydCap = (message: { data?: any } | undefined) =>
  (
    message?.data?.bankPositionsUpdated as Array<{ currency: string; livemode: boolean; netDebitCap: number | null }>
  )?.find((p) => p.currency === 'LYD' && p.livemode)?.netDebitCap;

/**
 * The operator console's live positions and its confirmations' counts (issue 50), below the
 * browser: bankPositionsUpdated for admins only (the spec's FORBIDDEN for anyone else), fed by a
 * cap change; the console's own socket (/operator/graphql) signed in by its cookie alone, from
 * its origin; the admin-only counts, right and refused to others.
 */
describe('operator console: live positions and counts', () => {
  let t: TestPlatform;
  let bank: PaymentBank;
  let base: string;

  const setCap = async (amount: number) =>
    expect(
      (
        await t.rest('PUT', `/banks/${bank.handle}/net-debit-caps/LYD`, {
          headers: admin(t),
          body: { net_debit_cap: amount },
        })
      ).status,
    ).toBe(200);
  const consoleCookie = async (adminKey = t.adminKey) => {
    const answer = await fetch(`${base}/operator/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: base },
      body: JSON.stringify({ admin_key: adminKey }),
    });
    expect(answer.status).toBe(201);
    return /^gateway_operator=([^;]*)/.exec(answer.headers.get('set-cookie') ?? '')![1]!;
  };
  /** A socket to rest-compat's /operator/graphql with these handshake headers, as a browser opens it. */
  const consoleSocket = (headers: Record<string, string>) =>
    class extends WebSocket {
      constructor(url: string, protocols?: string | string[]) {
        super(url, protocols, { headers });
      }
    };
  /** The handshake's answer: the HTTP status of a refused upgrade, or 101. */
  const handshake = (headers: Record<string, string>) =>
    new Promise<number>((resolve) => {
      const socket = new WebSocket(`${wsUrl(base)}/operator/graphql`, 'graphql-transport-ws', { headers });
      socket.on('open', () => (socket.close(), resolve(101)));
      socket.on('unexpected-response', (_request, response) => (socket.terminate(), resolve(response.statusCode!)));
      socket.on('error', () => undefined);
    });

  /** Waits, at most 5 s from now, for a message of `live` that `matches`. */
  const messageWithin = async (
    live: SubscriptionRecord,
    matches: (message: SubscriptionRecord['messages'][number]) => boolean,
    what: string,
  ) => {
    const deadline = Date.now() + 5_000;
    while (!live.messages.some(matches)) {
      if (Date.now() > deadline) throw new Error(`${what}: not within 5 s; got ${JSON.stringify(live.messages)}`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  };

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE, env: { SETTLEMENT_INTERVAL_SECONDS: '0' } });
    base = t.platform.restUrl;
    bank = await startPaymentBank(t);
    await setCap(5_000);
  }, 120_000);
  afterAll(async () => {
    await bank?.sandbox.stop();
    await t?.stop();
  });

  it('bankPositionsUpdated: an admin gets the positions, then a cap change at once; merchant, bank and TPP credentials are FORBIDDEN', async () => {
    const live = subscribe(t.platform.graphqlUrl, { adminKey: t.adminKey }, POSITIONS, { handle: bank.handle });
    try {
      await live.waitForMessages(1, 'the current positions');
      expect(lydCap(live.messages[0])).toBe(5_000);
      await setCap(7_000);
      // Another event may re-read the view first (the same positions again): the cap's own comes within 5 s.
      await messageWithin(live, (message) => lydCap(message) === 7_000, 'the positions after the cap change');
    } finally {
      await live.dispose();
    }

    const merchant = await t.seed.createMerchant({ name: 'Curious Shop' });
    const tpp = await t.seed.registerTpp({ name: 'Curious App' });
    // (A bank key is no subscription credential at all: its socket is refused at connection_init, 4403.)
    for (const params of [
      { authorization: `Bearer ${merchant.apiKey}` },
      { authorization: `Bearer ${tpp.tppAccessToken}` },
    ]) {
      const refused = subscribe(t.platform.graphqlUrl, params, POSITIONS, { handle: bank.handle });
      try {
        await refused.ended;
        const codes = (refused.errors as Array<Array<{ extensions?: { code?: string } }>>)
          .flat()
          .map((error) => error.extensions?.code);
        expect({ codes, messages: refused.messages, close: refused.closeCode }).toEqual({
          codes: ['FORBIDDEN'],
          messages: [],
          close: undefined,
        });
      } finally {
        await refused.dispose();
      }
    }
  }, 60_000);

  it('settlementCyclesUpdated: an admin gets the latest cycles, then a new cycle at once; a merchant key is FORBIDDEN', async () => {
    const CYCLES = `subscription { settlementCyclesUpdated(first: 5) { edges { node { id status } } } }`;
    const live = subscribe(t.platform.graphqlUrl, { adminKey: t.adminKey }, CYCLES, {});
    try {
      await live.waitForMessages(1, 'the current cycles');
      const run = await t.rest('POST', '/settlement/cycles', { headers: admin(t) });
      expect(run.status).toBe(201);
      await messageWithin(
        live,
        (message) => message.data?.settlementCyclesUpdated.edges[0]?.node.id === run.body.cycle_id,
        'the cycles after a new one',
      );
    } finally {
      await live.dispose();
    }
    const merchant = await t.seed.createMerchant({ name: 'Nosy Shop' });
    const refused = subscribe(t.platform.graphqlUrl, { authorization: `Bearer ${merchant.apiKey}` }, CYCLES, {});
    try {
      await refused.ended;
      const codes = (refused.errors as Array<Array<{ extensions?: { code?: string } }>>)
        .flat()
        .map((error) => error.extensions?.code);
      expect({ codes, messages: refused.messages }).toEqual({ codes: ['FORBIDDEN'], messages: [] });
    } finally {
      await refused.dispose();
    }
  }, 60_000);

  it('the console socket: its cookie alone, from its own origin; connectionParams are not a credential there', async () => {
    const cookie = await consoleCookie();
    expect(await handshake({ cookie: `gateway_operator=${cookie}` })).toBe(403); // no Origin
    expect(await handshake({ cookie: `gateway_operator=${cookie}`, origin: 'https://evil.example' })).toBe(403);
    expect(await handshake({ origin: base, authorization: `Bearer ${t.adminKey}` })).toBe(401); // no cookie
    expect(await handshake({ origin: base, cookie: `gateway_operator=${cookie}` })).toBe(101);

    // A merchant key in connection_init does not make the console socket a merchant's (it would be FORBIDDEN).
    const merchant = await t.seed.createMerchant({ name: 'Bystander Shop' });
    const messages: any[] = [];
    const client = createClient({
      url: `${wsUrl(base)}/operator/graphql`,
      webSocketImpl: consoleSocket({ origin: base, cookie: `gateway_operator=${cookie}` }),
      connectionParams: { authorization: `Bearer ${merchant.apiKey}` },
      retryAttempts: 0,
    });
    try {
      await new Promise<void>((resolve, reject) => {
        client.subscribe(
          { query: POSITIONS, variables: { handle: bank.handle } },
          { next: (message) => (messages.push(message), resolve()), error: reject, complete: () => undefined },
        );
      });
      expect(messages[0].errors).toBeUndefined();
      expect(lydCap(messages[0])).toEqual(expect.any(Number));
    } finally {
      await client.dispose();
    }
  }, 60_000);

  it("the confirmations' counts: a merchant's open payment sessions and dashboard sessions, a TPP's authorised consents, an admin key's console sessions; admin only", async () => {
    const shop = await t.seed.createMerchant({ name: 'Counted Shop' });
    const customer = await bank.customer();
    for (const amount of [100, 200])
      expect(
        (
          await t.rest('POST', '/payments/sessions', {
            headers: bearer(shop.apiKey),
            body: { amount, currency: 'LYD', destination: { type: 'alias', value: customer.alias } },
          })
        ).status,
      ).toBe(201);
    const dashboard = await fetch(`${base}/dashboard/session`, {
      method: 'POST',
      headers: { origin: base, ...bearer(shop.apiKey) },
    });
    expect(dashboard.status).toBe(201);

    await enableOpenBanking(t, bank);
    const tpp = await t.seed.registerTpp({ name: 'Counted App' });
    const consent = await createConsent(t, tpp.tppAccessToken, {
      bank_handle: bank.handle,
      redirect_uri: 'https://tpp.example/callback',
    });
    await approveConsent(t, consent.consentId, customer);
    await createConsent(t, tpp.tppAccessToken, {
      bank_handle: bank.handle,
      redirect_uri: 'https://tpp.example/callback',
    });

    const key = await t.rest('POST', '/admin/keys', { headers: admin(t), body: { name: 'counted-shift' } });
    expect(key.status).toBe(201);
    await consoleCookie(key.body.admin_key as string);
    await consoleCookie(key.body.admin_key as string);

    const counts = await t.execute<any, any>(
      `query Counts($merchant: ID!, $tpp: ID!) {
        merchant(id: $merchant) { openPaymentSessionCount dashboardSessionCount }
        tpp(id: $tpp) { authorisedConsentCount }
        adminKeys { id consoleSessionCount }
      }`,
      { merchant: shop.merchantId, tpp: tpp.tppId },
      admin(t),
    );
    expect(counts.merchant).toEqual({ openPaymentSessionCount: 2, dashboardSessionCount: 1 });
    expect(counts.tpp).toEqual({ authorisedConsentCount: 1 });
    expect(counts.adminKeys.find((row: { id: string }) => row.id === key.body.admin_key_id)).toEqual({
      id: key.body.admin_key_id,
      consoleSessionCount: 2,
    });

    // The merchant itself, and the TPP itself, are refused the operator's counts.
    const ownCounts = await t.executeExpectingErrors<any, any>(
      `query Own($id: ID!) { merchant(id: $id) { id openPaymentSessionCount dashboardSessionCount } }`,
      { id: shop.merchantId },
      bearer(shop.apiKey),
    );
    expect(ownCounts.errors?.map((error: any) => error.extensions?.code)).toEqual(['FORBIDDEN', 'FORBIDDEN']);
    expect(ownCounts.data?.merchant).toEqual({
      id: shop.merchantId,
      openPaymentSessionCount: null,
      dashboardSessionCount: null,
    });
    const tppCounts = await t.executeExpectingErrors<any, any>(
      `query Own($id: ID!) { tpp(id: $id) { id authorisedConsentCount } }`,
      { id: tpp.tppId },
      bearer(tpp.tppAccessToken),
    );
    expect(tppCounts.errors?.map((error: any) => error.extensions?.code)).toEqual(['FORBIDDEN']);
  }, 90_000);
});
