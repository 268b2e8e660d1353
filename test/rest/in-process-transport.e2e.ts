import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import type { IncomingMessage } from 'node:http';
import { bearer, FAST_ENGINE, startPaymentBank, type PaymentBank } from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';

/**
 * Issue 15 item 1: in one process, rest-compat runs its operation on the router without HTTP, the
 * router reaches co-located subgraphs without HTTP, and a subgraph's call to another (payments
 * resolving the alias at identity, the bank at banks) does the same. Counted at Node's HTTP servers
 * of this process: every /graphql request that crossed a socket. GRAPHQL_TRANSPORT=http keeps HTTP.
 */
describe.each([
  { transport: 'in-process', graphqlOverHttp: (n: number) => expect(n).toBe(0) },
  // rest-compat -> router, router -> payments, payments -> router -> identity/banks: several each.
  { transport: 'http', graphqlOverHttp: (n: number) => expect(n).toBeGreaterThanOrEqual(3) },
])('GraphQL transport between the platform parts in one process: $transport', ({ transport, graphqlOverHttp }) => {
  let t: TestPlatform;
  let bank: PaymentBank;
  const previous = process.env.GRAPHQL_TRANSPORT;
  const graphqlRequests: string[] = [];
  const count = ({ request }: { request: IncomingMessage }) => {
    if (request.url?.startsWith('/graphql')) graphqlRequests.push(request.url);
  };

  beforeAll(async () => {
    process.env.GRAPHQL_TRANSPORT = transport;
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    bank = await startPaymentBank(t);
    subscribe('http.server.request.start', count as never);
  });
  afterAll(async () => {
    unsubscribe('http.server.request.start', count as never);
    if (previous === undefined) delete process.env.GRAPHQL_TRANSPORT;
    else process.env.GRAPHQL_TRANSPORT = previous;
    await bank.sandbox.stop();
    await t.stop();
  });

  it('creates a session by alias through REST (identity and banks consulted) and reads it back, with the same answers', async () => {
    const payee = await bank.customer({ balance: 0 });
    const merchant = await t.seed.createMerchant({ name: `Transport ${transport}` });
    graphqlRequests.length = 0;

    const body = {
      amount: 4_200,
      currency: 'LYD',
      destination: { type: 'alias', value: payee.alias },
      reference: 'transport-1',
    };
    const created = await t.rest('POST', '/payments/sessions', { headers: bearer(merchant.apiKey), body });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ status: 'PENDING', creditor_iban: payee.iban, creditor_bank: bank.handle });
    expect(created.headers.get('x-ratelimit-limit')).toMatch(/^\d+$/);
    const read = await t.rest('GET', `/payments/sessions/${created.body.session_id}`, {
      headers: bearer(merchant.apiKey),
    });
    expect(read.status).toBe(200);
    expect(read.body.session_id).toBe(created.body.session_id);
    // Errors keep their spec code and status on both transports.
    const refused = await t.rest('POST', '/payments/sessions', { headers: bearer('sk_test_not_a_key'), body });
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('INVALID_API_KEY');

    graphqlOverHttp(graphqlRequests.length);
  });
});
