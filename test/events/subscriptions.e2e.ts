import { createRabbitBus, type EventBus } from '@gateway/events';
import { createLogger } from '@gateway/kernel';
import { readCommittedSdl } from '@gateway/platform';
import { startRouter, type RunningRouter } from '@gateway/router';
import { testAmqpUrl, testNamespace, testRabbitOptions } from '@gateway/events/testing';
import {
  bearer,
  eventually,
  FAST_ENGINE,
  startPaymentBank,
  type Customer,
  type PaymentBank,
} from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { subscribe, type SubscriptionRecord } from '../support/subscriptions';

const SESSION_UPDATES = `subscription Updates($id: ID!) {
  paymentSessionUpdated(id: $id) { id status amount creditorBank { handle displayName } }
}`;

/** paymentSessionUpdated end to end: router graphql-ws, bus, gateway resolution per event. */
describe('GraphQL subscriptions: paymentSessionUpdated', () => {
  const namespace = testNamespace();
  let t: TestPlatform;
  let oasis: PaymentBank;
  let atlas: PaymentBank;
  let merchant: { merchantId: string; apiKey: string };
  const open: SubscriptionRecord[] = [];

  const track = (record: SubscriptionRecord) => (open.push(record), record);
  const createSession = async (payee: Customer, apiKey = merchant.apiKey) => {
    const answer = await t.rest('POST', '/payments/sessions', {
      headers: bearer(apiKey),
      body: {
        amount: 2500,
        currency: 'LYD',
        destination: { type: 'alias', value: payee.alias },
        reference: 'order-77',
      },
    });
    expect(answer.status).toBe(201);
    return answer.body.session_id as string;
  };
  const pay = async (sessionId: string, payer: Customer) => {
    const authorize = () =>
      t.rest('POST', `/pay/${sessionId}/authorize`, {
        body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
      });
    let answer = await authorize();
    // A machine loaded far past its cores can let a bank call run out its 10 s (503 CBS_TIMEOUT).
    // A client then sends the same authorization again, which the contract makes safe: it
    // answers where the session stands. What these tests judge is the stream, not that latency.
    if (answer.status === 503) answer = await authorize();
    expect(answer.status).toBe(200);
    return answer.body as { session_id: string; status: string; session_token: string };
  };
  const statuses = (record: SubscriptionRecord) =>
    record.messages.map((message) => message.data?.paymentSessionUpdated?.status);
  const activeSubscriptions = async (routerUrl: string) => {
    const metrics = await (await fetch(`${routerUrl}/metrics`)).text();
    return Number(/^router_subscriptions_active\{[^}]*\} (\d+)/m.exec(metrics)?.[1] ?? 'NaN');
  };

  beforeAll(async () => {
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE, busNamespace: namespace });
    oasis = await startPaymentBank(t);
    // Slow credit confirmation: a subscriber attached after the debit still sees SETTLEMENT_PENDING.
    atlas = await startPaymentBank(t, { confirmDelayMs: { min: 700, max: 900 } });
    merchant = await t.seed.createMerchant();
  });
  afterEach(async () => {
    for (const record of open.splice(0)) await record.dispose();
  });
  afterAll(async () => {
    await oasis.sandbox.stop();
    await atlas.sandbox.stop();
    await t.stop();
  });

  it('a merchant sees PENDING -> PROCESSING -> COMPLETED of a same-bank payment, with a field of the banks subgraph in every message', async () => {
    const payee = await oasis.customer({ balance: 0 });
    const payer = await oasis.customer();
    const sessionId = await createSession(payee);
    const record = track(
      subscribe(t.platform.graphqlUrl, { authorization: `Bearer ${merchant.apiKey}` }, SESSION_UPDATES, {
        id: sessionId,
      }),
    );
    await record.waitForMessages(1, 'the current state');
    await pay(sessionId, payer);
    await record.ended;
    expect(record.errors).toEqual([]);
    expect(record.completed).toBe(true);
    expect(statuses(record)).toEqual(['PENDING', 'PROCESSING', 'COMPLETED']);
    for (const message of record.messages) {
      expect(message.data.paymentSessionUpdated).toMatchObject({
        id: sessionId,
        amount: 2500,
        creditorBank: { handle: oasis.handle, displayName: `Pay Bank ${oasis.institutionCode}` },
      });
    }
  });

  it('a cross-bank payment goes through SETTLEMENT_PENDING; the customer follows it with its sst_ token, through rest-compat', async () => {
    const payee = await atlas.customer({ balance: 0 });
    const payer = await oasis.customer();
    const sessionId = await createSession(payee);
    const merchantView = track(
      subscribe(t.platform.graphqlUrl, { authorization: `Bearer ${merchant.apiKey}` }, SESSION_UPDATES, {
        id: sessionId,
      }),
    );
    await merchantView.waitForMessages(1, 'the current state');
    const { session_token: token } = await pay(sessionId, payer);
    expect(token).toMatch(/^sst_/);
    const customerView = track(
      subscribe(
        `${t.platform.restUrl}/graphql`,
        { sessionToken: token },
        `subscription($id: ID!) { paymentSessionUpdated(id: $id) { status creditorBank { displayName } } }`,
        {
          id: sessionId,
        },
      ),
    );
    await merchantView.ended;
    await customerView.ended;
    expect(statuses(merchantView)).toEqual(['PENDING', 'PROCESSING', 'SETTLEMENT_PENDING', 'COMPLETED']);
    expect(customerView.errors).toEqual([]);
    // It joined after the debit: its first message is the state then, its last is COMPLETED.
    expect(statuses(customerView).at(-1)).toBe('COMPLETED');
    expect(['PROCESSING', 'SETTLEMENT_PENDING']).toContain(statuses(customerView)[0]);
    expect(customerView.messages[0]!.data.paymentSessionUpdated.creditorBank).toEqual({
      displayName: `Pay Bank ${atlas.institutionCode}`,
    });
  });

  it("refuses a bad credential (4403), another merchant's session and another session's token", async () => {
    const payee = await oasis.customer({ balance: 0 });
    const payer = await oasis.customer();
    const sessionId = await createSession(payee);
    const badKey = track(
      subscribe(t.platform.graphqlUrl, { authorization: 'Bearer mk_test_not_a_key' }, SESSION_UPDATES, {
        id: sessionId,
      }),
    );
    await badKey.ended;
    expect(badKey.closeCode).toBe(4403);
    expect(badKey.messages).toEqual([]);

    const other = await t.seed.createMerchant();
    const otherMerchant = track(
      subscribe(t.platform.graphqlUrl, { authorization: `Bearer ${other.apiKey}` }, SESSION_UPDATES, { id: sessionId }),
    );
    await otherMerchant.ended;
    expect(otherMerchant.messages).toEqual([]);
    expect((otherMerchant.errors[0] as Array<{ extensions: { code: string } }>)[0]!.extensions.code).toBe(
      'SESSION_NOT_FOUND',
    );

    const { session_token: token } = await pay(sessionId, payer);
    const secondSession = await createSession(payee);
    const wrongSession = track(
      subscribe(t.platform.graphqlUrl, { sessionToken: token }, SESSION_UPDATES, { id: secondSession }),
    );
    await wrongSession.ended;
    expect(wrongSession.messages).toEqual([]);
    expect((wrongSession.errors[0] as Array<{ extensions: { code: string } }>)[0]!.extensions.code).toBe(
      'SESSION_NOT_FOUND',
    );

    // NUL in a variable: bad input as over HTTP (PostgreSQL text cannot hold it), never a failed subscription start.
    const nul = track(
      subscribe(t.platform.graphqlUrl, { authorization: `Bearer ${merchant.apiKey}` }, SESSION_UPDATES, {
        id: `${sessionId}\u0000`,
      }),
    );
    await nul.ended;
    expect(nul.messages).toEqual([]);
    expect((nul.errors[0] as Array<{ extensions: { code: string } }>)[0]!.extensions.code).toBe('VALIDATION_ERROR');
  });

  it('two router instances each deliver every event to their own subscribers; a vanished client leaves nothing behind', async () => {
    const amqpUrl = testAmqpUrl();
    // On RabbitMQ the second router has its own connection (its own fan-out queue), as another process would.
    const secondBus: EventBus = amqpUrl ? createRabbitBus(amqpUrl, testRabbitOptions(namespace)) : t.platform.bus;
    let second: RunningRouter | undefined;
    try {
      second = await startRouter({
        db: t.platform.db,
        subgraphs: Object.entries(t.platform.subgraphUrls).map(([name, url]) => ({
          name,
          url,
          sdl: readCommittedSdl(name),
        })),
        platformSecret: t.platform.platformSecret,
        adminKey: t.adminKey,
        production: false,
        bus: secondBus,
        logger: createLogger('test', 'silent'),
      });
      const payee = await oasis.customer({ balance: 0 });
      const payer = await oasis.customer();
      const sessionId = await createSession(payee);
      const onFirst = track(
        subscribe(t.platform.graphqlUrl, { authorization: `Bearer ${merchant.apiKey}` }, SESSION_UPDATES, {
          id: sessionId,
        }),
      );
      const onSecond = track(
        subscribe(second.graphqlUrl, { authorization: `Bearer ${merchant.apiKey}` }, SESSION_UPDATES, {
          id: sessionId,
        }),
      );
      const vanishing = track(
        subscribe(second.graphqlUrl, { authorization: `Bearer ${merchant.apiKey}` }, SESSION_UPDATES, {
          id: sessionId,
        }),
      );
      await Promise.all([onFirst.waitForMessages(1), onSecond.waitForMessages(1), vanishing.waitForMessages(1)]);
      expect(await activeSubscriptions(second.url)).toBe(2);
      await vanishing.client.terminate(); // gone without a goodbye
      await eventually(
        async () => ((await activeSubscriptions(second!.url)) === 1 ? true : undefined),
        'the vanished subscriber to be dropped',
      );

      await pay(sessionId, payer);
      await Promise.all([onFirst.ended, onSecond.ended]);
      expect(statuses(onFirst)).toEqual(['PENDING', 'PROCESSING', 'COMPLETED']);
      expect(statuses(onSecond)).toEqual(['PENDING', 'PROCESSING', 'COMPLETED']);
      await eventually(
        async () => ((await activeSubscriptions(second!.url)) === 0 ? true : undefined),
        'completed streams to be released',
      );
      expect(await activeSubscriptions(t.platform.routerUrl)).toBe(0);
    } finally {
      await second?.stop();
      if (secondBus !== t.platform.bus) await secondBus.close();
    }
  });

  it('answers a query or mutation sent over the WebSocket with an error, and serves only subscription fields it knows', async () => {
    const query = track(
      subscribe(t.platform.graphqlUrl, { authorization: `Bearer ${merchant.apiKey}` }, `query { __typename }`, {}),
    );
    await query.ended;
    expect(query.messages.length + query.errors.length).toBeGreaterThan(0);
    const flattened = JSON.stringify([query.messages, query.errors]);
    expect(flattened).toContain('POST /graphql');
  });
});
