import { call, expectError, expectRateLimitHeaders, responseSchemaOf } from '@gateway/rest-compat/testing';
import {
  bearer,
  eventually,
  FAST_ENGINE,
  sessionEvents,
  startPaymentBank,
  type Customer,
  type PaymentBank,
} from '../support/payments';
import { gql } from '../support/graphql';
import { lyIban, startTestPlatform, type TestPlatform } from '../support/platform';

/** POST/GET /payments/sessions end to end: rest-compat -> router -> payments -> identity and banks registries. */
describe('REST payment sessions', () => {
  let t: TestPlatform;
  let base: string;
  let bank: PaymentBank;
  let limited: PaymentBank;
  let payee: Customer;
  let merchant: { merchantId: string; apiKey: string };
  let other: { merchantId: string; apiKey: string };

  const create = (body: Record<string, unknown>, key = merchant.apiKey, headers: Record<string, string> = {}) =>
    call(base, 'POST', '/payments/sessions', { headers: { ...bearer(key), ...headers }, body });
  const sessionBody = (patch: Record<string, unknown> = {}) => ({
    amount: 12_500,
    currency: 'LYD',
    destination: { type: 'alias', value: payee.alias },
    ...patch,
  });
  const counts = async () => ({
    sessions: Number((await t.platform.db.knex('payments.payment_sessions').count({ n: '*' }))[0]!.n),
    events: Number((await t.platform.db.knex('payments.outbox').count({ n: '*' }))[0]!.n),
  });

  beforeAll(async () => {
    t = await startTestPlatform({
      paymentsEngine: FAST_ENGINE,
      env: { SESSION_TTL_SECONDS: '600', PUBLIC_BASE_URL: 'https://pay.example.ly' },
    });
    base = t.platform.restUrl;
    bank = await startPaymentBank(t);
    limited = await startPaymentBank(t, { minAmount: 1_000, maxAmount: 50_000 });
    payee = await bank.customer({ balance: 0 });
    merchant = await t.seed.createMerchant({ name: 'Session Shop' });
    other = await t.seed.createMerchant({ name: 'Other Shop' });
  });
  afterAll(async () => {
    await bank.sandbox.stop();
    await limited.sandbox.stop();
    await t.stop();
  });

  describe('create', () => {
    it('201: a PENDING session with checkout_url, expires_at from the configured TTL, and payment.initiated in the outbox', async () => {
      const answer = await create(
        sessionBody({
          description: 'Order 1001',
          reference: 'order-1001',
          redirect_url: 'https://shop.example/back?x=1',
        }),
      );
      expect(answer.status).toBe(201);
      expect(responseSchemaOf('POST', '/payments/sessions').safeParse(answer.body).error).toBeUndefined();
      const session = answer.body;
      expect(session).toMatchObject({
        session_id: expect.stringMatching(/^ops_[0-9A-Za-z]{24}$/),
        merchant_id: merchant.merchantId,
        status: 'PENDING',
        amount: 12_500,
        currency: 'LYD',
        destination: { type: 'alias', value: payee.alias },
        creditor_iban: payee.iban,
        creditor_bank: bank.handle,
        debtor_bank: null,
        settlement_type: null,
        description: 'Order 1001',
        reference: 'order-1001',
        redirect_url: 'https://shop.example/back?x=1',
        failure_code: null,
      });
      expect(session.checkout_url).toBe(`https://pay.example.ly/pay/${session.session_id}`);
      expect(Date.parse(session.expires_at) - Date.parse(session.created_at)).toBe(600_000);
      expectRateLimitHeaders(answer);

      const events = await sessionEvents(t, session.session_id);
      expect(events).toEqual([
        {
          kind: 'payment.initiated',
          audience: merchant.merchantId,
          data: {
            session_id: session.session_id,
            livemode: true,
            status: 'PENDING',
            amount: 12_500,
            currency: 'LYD',
            reference: 'order-1001',
            metadata: {},
            merchant_id: merchant.merchantId,
          },
        },
      ]);
    });

    it('routes every destination form: alias, alias@bank and IBAN (any spelling), resolved at creation', async () => {
      const spaced = payee.iban.replace(/(.{4})/g, '$1 ').toLowerCase();
      for (const destination of [
        { type: 'alias', value: payee.alias },
        { type: 'alias', value: `${payee.alias}@${bank.handle}` },
        { type: 'iban', value: spaced },
      ]) {
        const answer = await create(sessionBody({ destination }));
        expect([destination, answer.status, answer.body.creditor_iban, answer.body.creditor_bank]).toEqual([
          destination,
          201,
          payee.iban,
          bank.handle,
        ]);
      }
      // An IBAN need not be in the registry: it is routed by the institution code inside it.
      const unregistered = lyIban(bank.institutionCode, 424242);
      expect((await create(sessionBody({ destination: { type: 'iban', value: unregistered } }))).body).toMatchObject({
        creditor_iban: unregistered,
        creditor_bank: bank.handle,
      });
    });

    it("refuses unroutable destinations and amounts outside the bank's limits, writing nothing", async () => {
      const limitedPayee = await limited.customer({ balance: 0 });
      const gone = await bank.customer();
      expect(
        (
          await call(base, 'DELETE', `/v1/identity/aliases/${gone.alias}`, {
            headers: { 'x-service-bank-key': bank.bankKey },
          })
        ).status,
      ).toBe(204);
      const before = await counts();
      expectError(
        await create(sessionBody({ destination: { type: 'alias', value: 'nobody.here' } })),
        404,
        'ALIAS_NOT_FOUND',
      );
      expectError(
        await create(sessionBody({ destination: { type: 'alias', value: `${payee.alias}@${limited.handle}` } })),
        404,
        'ALIAS_NOT_FOUND',
      );
      expectError(
        await create(sessionBody({ destination: { type: 'alias', value: gone.alias } })),
        422,
        'ALIAS_INACTIVE',
      );
      expectError(
        await create(sessionBody({ destination: { type: 'iban', value: lyIban('999', 1) } })),
        422,
        'BANK_NOT_PARTICIPATING',
      );
      const low = await create(sessionBody({ amount: 999, destination: { type: 'alias', value: limitedPayee.alias } }));
      expectError(low, 422, 'AMOUNT_TOO_LOW');
      expect(low.body.error.detail).toBe(`amount: 999 is below ${limited.handle}'s minimum of 1000`);
      expectError(
        await create(sessionBody({ amount: 50_001, destination: { type: 'alias', value: limitedPayee.alias } })),
        422,
        'AMOUNT_TOO_HIGH',
      );
      expect(
        (await create(sessionBody({ amount: 1_000, destination: { type: 'alias', value: limitedPayee.alias } })))
          .status,
      ).toBe(201);
      expect(
        (await create(sessionBody({ amount: 50_000, destination: { type: 'alias', value: limitedPayee.alias } })))
          .status,
      ).toBe(201);
      expect(await counts()).toEqual({ sessions: before.sessions + 2, events: before.events + 2 });

      await t.platform.db.knex('banks.banks').where({ handle: limited.handle }).update({ status: 'SUSPENDED' });
      expectError(
        await create(sessionBody({ amount: 5_000, destination: { type: 'alias', value: limitedPayee.alias } })),
        422,
        'BANK_NOT_PARTICIPATING',
      );
      await t.platform.db.knex('banks.banks').where({ handle: limited.handle }).update({ status: 'ACTIVE' });
    });

    it('validates the body field by field (400 VALIDATION_ERROR naming the field) and writes nothing', async () => {
      const before = await counts();
      const cases: Array<[Record<string, unknown>, RegExp]> = [
        [{ amount: 0 }, /^amount: /],
        [{ amount: -100 }, /^amount: /],
        [{ amount: 10.5 }, /amount/],
        [{ amount: '100' }, /^amount: /],
        [{ currency: 'GBP' }, /^currency: must be one of LYD, USD, EUR/],
        [{ currency: 'lyd' }, /^currency: /],
        [{ destination: { type: 'phone', value: '+218912345678' } }, /^destination/],
        [
          { destination: { type: 'iban', value: 'LY84002048000020100120361' } },
          /^destination\.value: not a valid IBAN/,
        ],
        [{ destination: { type: 'alias', value: 'no spaces please' } }, /^destination\.value: /],
        [{ reference: 'r'.repeat(129) }, /^reference: must be at most 128 characters/],
        [{ description: 'd'.repeat(501) }, /^description: must be at most 500 characters/],
        [{ redirect_url: 'ftp://shop.example/back' }, /^redirect_url: /],
        [{ webhook_url: 'not a url' }, /^webhook_url: /],
        [{ tip: 5 }, /^tip: unknown field/],
      ];
      for (const [patch, detail] of cases) {
        const answer = await create(sessionBody(patch));
        expect([patch, answer.status, answer.body.error?.code]).toEqual([patch, 400, 'VALIDATION_ERROR']);
        expect(answer.body.error.detail).toMatch(detail);
      }
      expectError(await create({ amount: 100, currency: 'LYD' }), 400, 'VALIDATION_ERROR');
      expect(await counts()).toEqual(before);
    });

    it('is for merchant keys: 401 INVALID_API_KEY without or with a bad key, 403 for a bank key', async () => {
      expectError(await call(base, 'POST', '/payments/sessions', { body: sessionBody() }), 401, 'INVALID_API_KEY');
      expectError(await create(sessionBody(), 'mk_test_notakey'), 401, 'INVALID_API_KEY');
      expectError(
        await call(base, 'POST', '/payments/sessions', {
          headers: { 'x-service-bank-key': bank.bankKey },
          body: sessionBody(),
        }),
        403,
        'FORBIDDEN',
      );
    });
  });

  describe('read', () => {
    it("answers the merchant's own session; another merchant's is 404 SESSION_NOT_FOUND like an unknown id", async () => {
      const { session_id: id } = (await create(sessionBody({ reference: 'mine' }))).body;
      const own = await call(base, 'GET', `/payments/sessions/${id}`, { headers: bearer(merchant.apiKey) });
      expect(own.status).toBe(200);
      expect(responseSchemaOf('GET', '/payments/sessions/{session_id}').safeParse(own.body).error).toBeUndefined();
      expect(own.body).toMatchObject({ session_id: id, reference: 'mine', status: 'PENDING' });
      expectError(
        await call(base, 'GET', `/payments/sessions/${id}`, { headers: bearer(other.apiKey) }),
        404,
        'SESSION_NOT_FOUND',
      );
      expectError(
        await call(base, 'GET', '/payments/sessions/ops_doesnotexist', { headers: bearer(merchant.apiKey) }),
        404,
        'SESSION_NOT_FOUND',
      );
      expectError(await call(base, 'GET', `/payments/sessions/${id}`), 401, 'INVALID_API_KEY');
      expect(
        (await call(base, 'GET', `/payments/sessions/${id}`, { headers: { 'x-service-admin-key': t.adminKey } })).body
          .session_id,
      ).toBe(id);
    });
  });

  describe('list', () => {
    it('pages newest first with limit and cursor: stable, no overlap, next_cursor and has_more; new sessions never shift later pages', async () => {
      const shop = await t.seed.createMerchant({ name: 'Pager' });
      const made: string[] = [];
      for (let i = 0; i < 7; i += 1)
        made.push((await create(sessionBody({ reference: `p${i}` }), shop.apiKey)).body.session_id);
      // Three sessions share one creation instant: the id breaks the tie, so order stays total.
      const instant = new Date();
      await t.platform.db
        .knex('payments.payment_sessions')
        .whereIn('id', made.slice(2, 5))
        .update({ created_at: instant });
      const expected = (
        await t.platform.db
          .knex('payments.payment_sessions')
          .where({ merchant_id: shop.merchantId })
          .orderBy([
            { column: 'created_at', order: 'desc' },
            { column: 'id', order: 'desc' },
          ])
      ).map((row: { id: string }) => row.id);
      expect(new Set(expected)).toEqual(new Set(made));

      const seen: string[] = [];
      let cursor: string | null = null;
      const pages: Array<{ size: number; hasMore: boolean }> = [];
      do {
        const answer = await call(base, 'GET', `/payments/sessions?limit=3${cursor ? `&cursor=${cursor}` : ''}`, {
          headers: bearer(shop.apiKey),
        });
        expect(answer.status).toBe(200);
        expect(responseSchemaOf('GET', '/payments/sessions').safeParse(answer.body).error).toBeUndefined();
        seen.push(...answer.body.sessions.map((session: { session_id: string }) => session.session_id));
        pages.push({ size: answer.body.sessions.length, hasMore: answer.body.pagination.has_more });
        cursor = answer.body.pagination.next_cursor;
        if (pages.length === 1) await create(sessionBody({ reference: 'late' }), shop.apiKey); // lands before page 1, not in page 2
        expect(cursor === null).toBe(!answer.body.pagination.has_more);
      } while (cursor);
      expect(pages).toEqual([
        { size: 3, hasMore: true },
        { size: 3, hasMore: true },
        { size: 1, hasMore: false },
      ]);
      expect(seen).toEqual(expected);

      const first = await call(base, 'GET', '/payments/sessions', { headers: bearer(shop.apiKey) });
      expect(first.body.sessions).toHaveLength(8);
      expect(first.body.sessions[0].reference).toBe('late');
      expect(first.body.pagination).toEqual({ next_cursor: null, has_more: false });
    });

    it("lists only the merchant's own sessions and refuses bad paging parameters", async () => {
      const shop = await t.seed.createMerchant();
      const mine = (await create(sessionBody(), shop.apiKey)).body.session_id;
      const theirs = (await create(sessionBody())).body.session_id;
      const listed = await call(base, 'GET', '/payments/sessions', { headers: bearer(shop.apiKey) });
      expect(listed.body.sessions.map((s: { session_id: string }) => s.session_id)).toEqual([mine]);
      for (const query of ['limit=0', 'limit=101', 'limit=abc', 'page=2'])
        expectError(
          await call(base, 'GET', `/payments/sessions?${query}`, { headers: bearer(shop.apiKey) }),
          400,
          'VALIDATION_ERROR',
        );
      expectError(
        await call(base, 'GET', `/payments/sessions?cursor=${theirs}`, { headers: bearer(shop.apiKey) }),
        400,
        'VALIDATION_ERROR',
      );
      expectError(await call(base, 'GET', '/payments/sessions'), 401, 'INVALID_API_KEY');
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first response for the same key and body; another body with the key is 422 IDEMPOTENCY_KEY_REUSED', async () => {
      const key = { 'idempotency-key': 'order-7-attempt' };
      const first = await create(sessionBody({ reference: 'order-7' }), merchant.apiKey, key);
      expect(first.status).toBe(201);
      // The session moves on (it expires); a replay still answers what the first request answered.
      await t.platform.db
        .knex('payments.payment_sessions')
        .where({ id: first.body.session_id })
        .update({ expires_at: new Date(Date.now() - 1000) });
      await eventually(
        async () =>
          (await sessionEvents(t, first.body.session_id)).some((e) => e.kind === 'payment.expired') ? true : undefined,
        'expiry',
      );
      const again = await create(sessionBody({ reference: 'order-7' }), merchant.apiKey, key);
      expect(again.status).toBe(201);
      expect(again.body).toEqual(first.body);
      expect(await t.platform.db.knex('payments.payment_sessions').where({ reference: 'order-7' })).toHaveLength(1);

      const reused = await create(sessionBody({ reference: 'order-7', amount: 99 }), merchant.apiKey, key);
      expectError(reused, 422, 'IDEMPOTENCY_KEY_REUSED');
      expect(await t.platform.db.knex('payments.payment_sessions').where({ reference: 'order-7' })).toHaveLength(1);
    });

    it('answers 409 IDEMPOTENCY_KEY_IN_USE while the first request is in flight, and scopes keys per merchant', async () => {
      await t.platform.db.knex('payments.idempotency_keys').insert({
        merchant_id: merchant.merchantId,
        key: 'busy-key',
        request_hash: 'whatever-the-first-body-was',
        status: 'in_flight',
        response: null,
        created_at: new Date(),
        locked_until: new Date(Date.now() + 60_000),
      });
      expectError(
        await create(sessionBody(), merchant.apiKey, { 'idempotency-key': 'busy-key' }),
        409,
        'IDEMPOTENCY_KEY_IN_USE',
      );
      const elsewhere = await create(sessionBody(), other.apiKey, { 'idempotency-key': 'busy-key' });
      expect(elsewhere.status).toBe(201);
      expect(elsewhere.body.merchant_id).toBe(other.merchantId);
    });

    it('creates exactly one session for concurrent requests with one key; the others get the first answer or 409', async () => {
      const key = { 'idempotency-key': 'double-click' };
      const answers = await Promise.all(
        Array.from({ length: 6 }, () => create(sessionBody({ reference: 'double-click' }), merchant.apiKey, key)),
      );
      const created = answers.filter((answer) => answer.status === 201);
      expect(created.length).toBeGreaterThanOrEqual(1);
      expect(new Set(created.map((answer) => answer.body.session_id)).size).toBe(1);
      for (const answer of answers.filter((a) => a.status !== 201)) expectError(answer, 409, 'IDEMPOTENCY_KEY_IN_USE');
      expect(await t.platform.db.knex('payments.payment_sessions').where({ reference: 'double-click' })).toHaveLength(
        1,
      );
    });

    it('does not keep the key of a refused request, and forgets keys after 24 hours', async () => {
      const key = { 'idempotency-key': 'fix-and-retry' };
      expectError(
        await create(sessionBody({ destination: { type: 'alias', value: 'nobody.here' } }), merchant.apiKey, key),
        404,
        'ALIAS_NOT_FOUND',
      );
      expect((await create(sessionBody({ reference: 'fixed' }), merchant.apiKey, key)).status).toBe(201);

      await t.platform.db
        .knex('payments.idempotency_keys')
        .where({ merchant_id: merchant.merchantId, key: 'fix-and-retry' })
        .update({ created_at: new Date(Date.now() - 25 * 3_600_000) });
      const later = await create(sessionBody({ reference: 'a day later', amount: 777 }), merchant.apiKey, key);
      expect(later.status).toBe(201);
      expect(later.body.amount).toBe(777);
      expectError(
        await create(sessionBody(), merchant.apiKey, { 'idempotency-key': 'x'.repeat(256) }),
        400,
        'VALIDATION_ERROR',
      );
    });
  });

  describe('GraphQL', () => {
    const auth = () => bearer(merchant.apiKey);

    it('createPaymentSession with idempotencyKey, paymentSession with the federated creditorBank, paymentSessions as a Relay connection', async () => {
      const CREATE = gql<
        { createPaymentSession: { id: string; status: string; checkoutUrl: string; expiresAt: string } },
        { input: Record<string, unknown>; key?: string }
      >(
        `mutation($input: CreatePaymentSessionInput!, $key: String) { createPaymentSession(input: $input, idempotencyKey: $key) { id status checkoutUrl expiresAt } }`,
      );
      const input = {
        amount: 4_200,
        currency: 'LYD',
        destination: { type: 'alias', value: payee.alias },
        reference: 'gql-1',
      };
      // execute() fails the test on any GraphQL error.
      const created = await t.execute(CREATE, { input, key: 'gql-key' }, auth());
      const again = await t.execute(CREATE, { input, key: 'gql-key' }, auth());
      expect(again).toEqual(created);
      const id = created.createPaymentSession.id;

      const READ = gql<
        {
          paymentSession: {
            id: string;
            status: string;
            amount: number;
            creditorBank: { handle: string; displayName: string } | null;
            debtorBank: { handle: string } | null;
          };
        },
        { id: string }
      >(
        `query($id: ID!) { paymentSession(id: $id) { id status amount creditorBank { handle displayName } debtorBank { handle } } }`,
      );
      const read = await t.execute(READ, { id }, auth());
      expect(read.paymentSession).toEqual({
        id,
        status: 'PENDING',
        amount: 4_200,
        creditorBank: { handle: bank.handle, displayName: `Pay Bank ${bank.institutionCode}` },
        debtorBank: null,
      });

      const PAGE = gql<
        {
          paymentSessions: {
            edges: Array<{ cursor: string; node: { id: string } }>;
            pageInfo: {
              hasNextPage: boolean;
              hasPreviousPage: boolean;
              startCursor: string | null;
              endCursor: string | null;
            };
          };
        },
        { first?: number; after?: string | null }
      >(
        `query($first: Int, $after: String) { paymentSessions(first: $first, after: $after) { edges { cursor node { id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`,
      );
      const page = (await t.execute(PAGE, { first: 2 }, auth())).paymentSessions;
      expect(page.edges).toHaveLength(2);
      expect(page.edges[0]!.node.id).toBe(id);
      expect(page.pageInfo).toEqual({
        hasNextPage: true,
        hasPreviousPage: false,
        startCursor: page.edges[0]!.cursor,
        endCursor: page.edges[1]!.cursor,
      });
      const next = (await t.execute(PAGE, { first: 2, after: page.pageInfo.endCursor }, auth())).paymentSessions;
      expect(next.edges.map((edge) => edge.node.id)).not.toContain(id);
      expect((await t.executeExpectingErrors(PAGE, { first: 0 }, auth())).errors[0]?.extensions?.code).toBe(
        'VALIDATION_ERROR',
      );
    });
  });
});
