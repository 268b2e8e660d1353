import { bearer, startPaymentBank, type Customer } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { subscribe } from '../support/subscriptions';

/**
 * Issue 13, "cost, not requests": a GraphQL document spends one point of its limit class per root
 * field selection, so aliases cannot do more work than the same calls over REST. Everything goes
 * through rest-compat (its /graphql proxy and its REST routes), as a client from one address.
 */
describe('GraphQL operations cost one point per root field', () => {
  let t: TestPlatform;
  let payee: Customer;
  let merchant: { merchantId: string; apiKey: string };
  const PHONE = '+218912345699';

  const graphql = async (query: string, headers: Record<string, string> = {}) => {
    const response = await fetch(`${t.platform.restUrl}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ query }),
    });
    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as { data?: any; errors?: any[] },
    };
  };
  const remaining = (response: { headers: Headers }) => Number(response.headers.get('x-ratelimit-remaining'));
  const aliases = (count: number, field: (i: number) => string) =>
    Array.from({ length: count }, (_, i) => `a${i}: ${field(i)}`).join(' ');

  beforeAll(async () => {
    // The spec's 600/min for resolution; a small session budget so its refusal is quick to reach.
    t = await startTestPlatform({
      rateLimits: { read: { points: 100_000 }, write: { points: 100_000 }, session_create: { points: 10 } },
    });
    const bank = await startPaymentBank(t);
    payee = await bank.customer();
    await t.seed.claimAlias(bank as never, { phone: PHONE });
    merchant = await t.seed.createMerchant({ name: 'Alias Shop' });
  });
  afterAll(async () => {
    await t.stop();
  });

  it('charges the 200-alias resolveAlias document 200 points, refuses its aliases, and stops a phone sweep at 600 look-ups over GraphQL and REST alike', async () => {
    const first = await t.rest('GET', `/v1/identity/resolve?alias=${encodeURIComponent(payee.alias)}`);
    expect(first.status).toBe(200);
    expect(remaining(first)).toBe(599);

    // The attack from the issue: it used to resolve 200 aliases for one point (594 -> 593).
    const attack = await graphql(
      `{ ${aliases(200, (i) => `resolveAlias(phone: "+2189123${String(i).padStart(5, '0')}") { iban }`)} }`,
    );
    expect(remaining(attack)).toBe(399);
    expect(attack.status).toBe(400);
    expect(attack.body.data).toBeUndefined();
    expect(attack.body.errors?.[0].extensions).toMatchObject({
      code: 'VALIDATION_ERROR',
      detail: expect.stringMatching(/Aliases limit of 30 exceeded, found 200/),
    });

    // Within the alias cap a document works, and costs one point per alias (phone look-ups too).
    const within = await graphql(`{ ${aliases(30, () => `resolveAlias(phone: "${PHONE}") { bankHandle }`)} }`);
    expect(within.status).toBe(200);
    expect(within.body.errors).toBeUndefined();
    expect(Object.keys(within.body.data)).toHaveLength(30);
    expect(remaining(within)).toBe(369);

    // A sweep of unknown numbers, 30 a document (not found, but looked up: charged all the same).
    const sweep = (n: number) =>
      graphql(
        `{ ${aliases(n, (i) => `resolveAlias(phone: "+2189100${String(i).padStart(5, '0')}") { bankHandle }`)} }`,
      );

    for (let left = 369; left >= 30; left -= 30) expect(remaining(await sweep(30))).toBe(left - 30);
    // 9 points left: a 30-point document is refused whole (nothing resolved, nothing spent).
    const refused = await sweep(30);
    expect(refused.status).toBe(429);
    expect(refused.body.data).toBeUndefined();
    expect(refused.body.errors?.[0].extensions).toMatchObject({
      code: 'RATE_LIMITED',
      detail: expect.stringMatching(/costs 30 points of the identity_resolve limit.*9 of 600 left/),
    });
    expect(remaining(refused)).toBe(9);
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    // REST spends the same budget.
    for (let left = 8; left >= 0; left -= 1)
      expect(remaining(await t.rest('GET', `/v1/identity/resolve?phone=${encodeURIComponent(PHONE)}`))).toBe(left);
    const rest = await t.rest('GET', `/v1/identity/resolve?phone=${encodeURIComponent(PHONE)}`);
    expect(rest.status).toBe(429);
    expect(rest.body.error?.code).toBe('RATE_LIMITED');
  });

  it('counts aliases of createPaymentSession against session_create, refusing an over-budget document before any session is made', async () => {
    const create = (n: number) =>
      graphql(
        `mutation { ${aliases(n, (i) => `createPaymentSession(input: { amount: 1000, currency: "LYD", destination: { type: "alias", value: "${payee.alias}" }, reference: "cost-${n}-${i}" }) { id }`)} }`,
        bearer(merchant.apiKey),
      );
    const sessions = async () =>
      Number((await t.platform.db.knex('payments.payment_sessions').count({ n: '*' }))[0]!.n);
    const before = await sessions();

    const tooMany = await create(11);
    expect(tooMany.status).toBe(429);
    expect(tooMany.body.errors?.[0].extensions.detail).toMatch(
      /costs 11 points of the session_create limit.*the limit is 10 per window/,
    );
    expect(await sessions()).toBe(before);

    const three = await create(3);
    expect(three.status).toBe(200);
    expect(three.body.errors).toBeUndefined();
    expect(remaining(three)).toBe(7);
    expect(await sessions()).toBe(before + 3);

    // The REST route spends the same class: one point per session.
    const rest = await t.rest('POST', '/payments/sessions', {
      headers: bearer(merchant.apiKey),
      body: { amount: 1000, currency: 'LYD', destination: { type: 'alias', value: payee.alias } },
    });
    expect(rest.status).toBe(201);
    expect(remaining(rest)).toBe(6);
  });
});

describe('GraphQL subscriptions cost one read point per subscribe', () => {
  let t: TestPlatform;
  beforeAll(async () => {
    t = await startTestPlatform({ rateLimits: { read: { points: 2 }, write: { points: 100_000 } } });
  });
  afterAll(async () => {
    await t.stop();
  });

  it('refuses a subscribe over the read budget with RATE_LIMITED', async () => {
    const merchant = await t.seed.createMerchant({ name: 'Subscriber' });
    const codes: unknown[] = [];
    for (let i = 0; i < 3; i += 1) {
      const record = subscribe(
        t.platform.graphqlUrl,
        { authorization: `Bearer ${merchant.apiKey}` },
        `subscription($id: ID!) { paymentSessionUpdated(id: $id) { status } }`,
        {
          id: 'ops_nothere',
        },
      );
      await record.ended;
      codes.push((record.errors[0] as any)?.[0]?.extensions?.code);
      await record.dispose();
    }
    // Each subscribe ran its query once (an unknown session), the third was over the budget of 2.
    expect(codes).toEqual(['SESSION_NOT_FOUND', 'SESSION_NOT_FOUND', 'RATE_LIMITED']);
  });
});
