import { call, expectError } from '@gateway/rest-compat/testing';
import { gql } from '../support/graphql';
import {
  bearer,
  FAST_ENGINE,
  paidSession,
  refundSettles,
  startPaymentBank,
  type Customer,
  type PaymentBank,
} from '../support/payments';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { startTestReceiver, type TestWebhookReceiver } from '../support/webhook-receiver';

/**
 * Issue 30, lists and metadata: every list (sessions, mandates, charges, refunds, deliveries)
 * filters by status, created range and its own fields over REST and GraphQL alike, pages by one
 * keyset that neither skips nor repeats while rows are inserted, and metadata is set at creation,
 * merged by PATCH ("" removes), filtered by one key=value, echoed in webhooks and kept from the payer.
 */
describe('list filters and metadata', () => {
  let t: TestPlatform;
  let base: string;
  let alpha: PaymentBank;
  let shop: Customer;
  let receiver: TestWebhookReceiver;
  let merchant: { merchantId: string; apiKey: string };
  let other: { merchantId: string; apiKey: string };

  const rest = (method: string, path: string, body?: unknown, key = merchant.apiKey) =>
    call(base, method, path, { headers: bearer(key), body });
  const newSession = async (patch: Record<string, unknown> = {}, key = merchant.apiKey) => {
    const created = await rest(
      'POST',
      '/payments/sessions',
      { amount: 1_000, currency: 'LYD', destination: { type: 'alias', value: shop.alias }, ...patch },
      key,
    );
    expect(created.status).toBe(201);
    return created.body as Record<string, any>;
  };
  // sessions -> session_id, refunds -> refund_id, mandates -> mandate_id, charges -> charge_id.
  const ids = (answer: { body: Record<string, any> }, list = 'sessions') =>
    (answer.body[list] as Array<Record<string, string>>).map((row) => row[`${list.slice(0, -1)}_id`]!);
  const q = (params: Record<string, string | number>) =>
    `?${Object.entries(params)
      .map(
        ([name, value]) =>
          `${encodeURIComponent(name).replace(/%5B/g, '[').replace(/%5D/g, ']')}=${encodeURIComponent(String(value))}`,
      )
      .join('&')}`;

  beforeAll(async () => {
    receiver = await startTestReceiver();
    t = await startTestPlatform({ paymentsEngine: FAST_ENGINE });
    base = t.platform.restUrl;
    alpha = await startPaymentBank(t);
    shop = await alpha.customer({ balance: 500_000 });
    merchant = await t.seed.createMerchant({
      name: 'Filter Shop',
      settlement_iban: shop.iban,
      webhook_url: receiver.url,
    });
    other = await t.seed.createMerchant({ name: 'Other Shop', settlement_iban: shop.iban });
  });
  afterAll(async () => {
    await alpha?.sandbox.stop();
    await t?.stop();
    await receiver?.stop();
  });

  it('filters sessions by status, range, reference, amount and metadata over REST and GraphQL; PATCH merges and removes; webhooks echo it', async () => {
    const payer = await alpha.customer({ balance: 50_000 });
    const a = await newSession({
      amount: 1_000,
      reference: 'r-a',
      metadata: { order_id: '1', channel: 'web', orderId: 'camel' },
    });
    const b = await newSession({ amount: 5_000, reference: 'r-b', metadata: { order_id: '2' } });
    const c = await newSession({ amount: 9_000, metadata: { channel: 'web', empty: '' } });
    const d = await paidSession(t, merchant.apiKey, shop, payer, 3_000, {
      metadata: { order_id: '3', channel: 'web' },
    });
    // Keys come back exactly as sent (no snake/camel conversion); "" at creation sets nothing.
    expect(a.metadata).toEqual({ order_id: '1', channel: 'web', orderId: 'camel' });
    expect(c.metadata).toEqual({ channel: 'web' });

    const list = (params: Record<string, string | number>) => rest('GET', `/payments/sessions${q(params)}`);
    expect(ids(await list({ 'metadata[channel]': 'web' }))).toEqual([d, c.session_id, a.session_id]);
    expect(ids(await list({ 'metadata[channel]': 'web', amount_min: 2_000, amount_max: 9_000 }))).toEqual([
      d,
      c.session_id,
    ]);
    expect(ids(await list({ status: 'COMPLETED', 'metadata[channel]': 'web' }))).toEqual([d]);
    expect(ids(await list({ status: 'PENDING', reference: 'r-a' }))).toEqual([a.session_id]);
    expect(ids(await list({ created_from: b.created_at, created_to: c.created_at }))).toEqual([b.session_id]);
    expect(ids(await list({ 'metadata[orderId]': 'camel' }))).toEqual([a.session_id]);
    expect((await list({ 'metadata[channel]': 'web' })).body.sessions[0].metadata).toEqual({
      order_id: '3',
      channel: 'web',
    });

    const LIST = gql<
      { paymentSessions: { edges: Array<{ node: { id: string; metadata: Array<{ key: string; value: string }> } }> } },
      { filter: Record<string, unknown> }
    >(
      `query($filter: PaymentSessionFilter) { paymentSessions(first: 10, filter: $filter) { edges { node { id metadata { key value } } } } }`,
    );
    const viaGraph = await t.execute(
      LIST,
      { filter: { metadata: { key: 'channel', value: 'web' }, amountMin: 2_000 } },
      bearer(merchant.apiKey),
    );
    expect(viaGraph.paymentSessions.edges.map((edge) => edge.node.id)).toEqual([d, c.session_id]);
    expect(viaGraph.paymentSessions.edges[0]!.node.metadata).toEqual([
      { key: 'channel', value: 'web' },
      { key: 'order_id', value: '3' },
    ]);

    // PATCH merges: "" removes channel, note is added, the rest stays; the filter follows at once.
    const patched = await rest('PATCH', `/payments/sessions/${a.session_id}`, {
      metadata: { channel: '', note: 'vip' },
    });
    expect([patched.status, patched.body.metadata]).toEqual([200, { order_id: '1', orderId: 'camel', note: 'vip' }]);
    expect(ids(await list({ 'metadata[channel]': 'web' }))).toEqual([d, c.session_id]);
    const UPDATE = gql<
      { updatePaymentSessionMetadata: { metadata: Array<{ key: string; value: string }> } },
      { id: string; metadata: Array<{ key: string; value: string }> }
    >(
      `mutation($id: ID!, $metadata: [MetadataEntryInput!]!) { updatePaymentSessionMetadata(id: $id, metadata: $metadata) { metadata { key value } } }`,
    );
    const viaGraphPatch = await t.execute(
      UPDATE,
      { id: a.session_id, metadata: [{ key: 'orderId', value: '' }] },
      bearer(merchant.apiKey),
    );
    expect(viaGraphPatch.updatePaymentSessionMetadata.metadata).toEqual([
      { key: 'note', value: 'vip' },
      { key: 'order_id', value: '1' },
    ]);

    // Webhooks carry the metadata as it is when the event happens.
    const completed = await receiver.waitFor(
      (w) => w.envelope.event === 'payment.completed' && w.envelope.data.session_id === d,
    );
    expect(completed.envelope.data.metadata).toEqual({ order_id: '3', channel: 'web' });
    expect((await rest('POST', `/payments/sessions/${a.session_id}/expire`)).status).toBe(200);
    const expired = await receiver.waitFor(
      (w) => w.envelope.event === 'payment.expired' && w.envelope.data.session_id === a.session_id,
    );
    expect(expired.envelope.data.metadata).toEqual({ order_id: '1', note: 'vip' });

    // Never the payer's: not on the checkout's JSON, refused to the session token over GraphQL.
    const checkout = await call(base, 'GET', `/pay/${c.session_id}`, { headers: { accept: 'application/json' } });
    expect(checkout.status).toBe(200);
    expect(JSON.stringify(checkout.body)).not.toContain('channel');
    const payerToken = (
      await call(base, 'POST', `/pay/${c.session_id}/authorize`, {
        body: { payer: { type: 'alias', value: payer.alias }, otp: payer.otp },
      })
    ).body.session_token as string;
    const READ = gql<unknown, { id: string }>(
      `query($id: ID!) { paymentSession(id: $id) { id metadata { key value } } }`,
    );
    const asPayer = await t.executeExpectingErrors(READ, { id: c.session_id }, { 'x-session-token': payerToken });
    expect(asPayer.errors[0]?.extensions?.code).toBe('FORBIDDEN');
    // Another merchant sees none of it, and cannot change it.
    expect(
      ids(await rest('GET', `/payments/sessions${q({ 'metadata[channel]': 'web' })}`, undefined, other.apiKey)),
    ).toEqual([]);
    expectError(
      await rest('PATCH', `/payments/sessions/${b.session_id}`, { metadata: { x: '1' } }, other.apiKey),
      404,
      'SESSION_NOT_FOUND',
    );
  });

  it('refuses bad filters and metadata over the limits with 400 naming the field, and changes nothing', async () => {
    const own = await newSession({
      metadata: Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`k${i}`, 'v'])),
    });
    const foreign = await newSession({}, other.apiKey);
    const refusedList = [
      [{ status: 'BOGUS' }, /^status: /],
      [{ created_from: 'yesterday' }, /^created_from: /],
      [{ created_to: '2026-02-30' }, /^created_to: /],
      [{ created_from: '2026-12-02T00:00:00Z', created_to: '2026-12-01T00:00:00Z' }, /^created_from: /],
      [{ amount_min: -1 }, /^amount_min: /],
      [{ amount_max: 'many' }, /^amount_max: /],
      [{ amount_min: 10, amount_max: 5 }, /^amount_min: /],
      [{ 'metadata[a]': '1', 'metadata[b]': '2' }, /^metadata: /],
      [{ 'metadata[]': 'x' }, /^metadata: /],
      [{ 'metadata[a]': '' }, /^metadata: /],
      [{ cursor: foreign.session_id }, /^cursor: /],
      [{ colour: 'red' }, /^colour: unknown/],
    ] as const;
    for (const [params, detail] of refusedList) {
      const answer = await rest('GET', `/payments/sessions${q(params)}`);
      expectError(answer, 400, 'VALIDATION_ERROR');
      expect(answer.body.error.detail).toMatch(detail);
    }
    for (const [path, detail] of [
      [`/webhooks/deliveries${q({ status: 'LOST' })}`, /^status: /],
      [`/webhooks/deliveries${q({ event: 'Payment Completed' })}`, /^event: /],
      [`/recurring/mandates${q({ status: 'PENDING' })}`, /^status: /],
      [`/payments/sessions/${own.session_id}/refunds${q({ status: 'PENDING' })}`, /^status: /],
    ] as const) {
      const answer = await rest('GET', path);
      expectError(answer, 400, 'VALIDATION_ERROR');
      expect(answer.body.error.detail).toMatch(detail);
    }
    const GRAPH = gql<unknown, { filter: Record<string, unknown> }>(
      `query($filter: PaymentSessionFilter) { paymentSessions(filter: $filter) { edges { cursor } } }`,
    );
    const graphRefusal = await t.executeExpectingErrors(
      GRAPH,
      { filter: { createdFrom: 'soon' } },
      bearer(merchant.apiKey),
    );
    expect(graphRefusal.errors[0]?.extensions?.code).toBe('VALIDATION_ERROR');

    // Metadata over the limits: refused at creation (no session written) and by PATCH (nothing changed).
    const before = await t.platform.db.knex('payments.payment_sessions').count({ n: '*' }).first();
    for (const metadata of [
      Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])),
      { ['k'.repeat(41)]: 'v' },
      { k: 'v'.repeat(501) },
      { 'a[b]': 'v' },
    ]) {
      const refused = await rest('POST', '/payments/sessions', {
        amount: 1_000,
        currency: 'LYD',
        destination: { type: 'alias', value: shop.alias },
        metadata,
      });
      expectError(refused, 400, 'VALIDATION_ERROR');
      expect(refused.body.error.detail).toMatch(/^metadata: /);
    }
    expect(await t.platform.db.knex('payments.payment_sessions').count({ n: '*' }).first()).toEqual(before);
    const tooMany = await rest('PATCH', `/payments/sessions/${own.session_id}`, {
      metadata: Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`new${i}`, 'v'])),
    });
    expectError(tooMany, 400, 'VALIDATION_ERROR');
    expect(tooMany.body.error.detail).toBe('metadata: at most 20 keys (this would make 21)');
    expect(Object.keys((await rest('GET', `/payments/sessions/${own.session_id}`)).body.metadata)).toHaveLength(15);
    // Removing one while adding six fits.
    const fits = await rest('PATCH', `/payments/sessions/${own.session_id}`, {
      metadata: { k0: '', ...Object.fromEntries(Array.from({ length: 6 }, (_, i) => [`new${i}`, 'v'])) },
    });
    expect(Object.keys(fits.body.metadata)).toHaveLength(20);
  });

  it('refuses the reserved keys __proto__, constructor and prototype with 400 naming the key, over REST and GraphQL (issue 46)', async () => {
    const reserved = (key: string) =>
      `metadata: key "${key}" is reserved (__proto__, constructor and prototype are never accepted)`;
    const own = await newSession({ metadata: { kept: '1' } });
    const before = await t.platform.db.knex('payments.payment_sessions').count({ n: '*' }).first();
    const destination = { type: 'alias', value: shop.alias };
    // REST said "body: malformed JSON" for __proto__ (and took constructor as a key).
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const body = `{"amount":1000,"currency":"LYD","destination":${JSON.stringify(destination)},"metadata":{"${key}":"x"}}`;
      const created = await rest('POST', '/payments/sessions', body);
      expectError(created, 400, 'VALIDATION_ERROR');
      expect(created.body.error.detail).toBe(reserved(key));
      const patched = await rest('PATCH', `/payments/sessions/${own.session_id}`, `{"metadata":{"${key}":"x"}}`);
      expectError(patched, 400, 'VALIDATION_ERROR');
      expect(patched.body.error.detail).toBe(reserved(key));
    }
    // GraphQL dropped __proto__ silently: the session was created without it.
    const CREATE = gql<unknown, { input: Record<string, unknown> }>(
      `mutation($input: CreatePaymentSessionInput!) { createPaymentSession(input: $input) { id metadata { key value } } }`,
    );
    const UPDATE = gql<unknown, { id: string; metadata: Array<{ key: string; value: string }> }>(
      `mutation($id: ID!, $metadata: [MetadataEntryInput!]!) { updatePaymentSessionMetadata(id: $id, metadata: $metadata) { id } }`,
    );
    for (const key of ['__proto__', 'constructor', 'prototype']) {
      const metadata = [{ key, value: 'x' }];
      const created = await t.executeExpectingErrors(
        CREATE,
        { input: { amount: 1_000, currency: 'LYD', destination, metadata } },
        bearer(merchant.apiKey),
      );
      expect(created.errors[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', detail: reserved(key) });
      const updated = await t.executeExpectingErrors(UPDATE, { id: own.session_id, metadata }, bearer(merchant.apiKey));
      expect(updated.errors[0]?.extensions).toMatchObject({ code: 'VALIDATION_ERROR', detail: reserved(key) });
    }
    // Nothing half-written.
    expect(await t.platform.db.knex('payments.payment_sessions').count({ n: '*' }).first()).toEqual(before);
    expect((await rest('GET', `/payments/sessions/${own.session_id}`)).body.metadata).toEqual({ kept: '1' });
  });

  it('pages a filtered list without skipping or repeating while sessions are inserted and rows leave the filter', async () => {
    const batch = `p${Date.now()}`;
    const made: string[] = [];
    for (let i = 0; i < 7; i += 1) {
      made.push((await newSession({ metadata: { batch } })).session_id);
      await newSession({ metadata: { batch: 'other' } });
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 5; page += 1) {
      const answer = await rest(
        'GET',
        `/payments/sessions${q({ limit: 3, status: 'PENDING', [`metadata[batch]`]: batch, ...(cursor ? { cursor } : {}) })}`,
      );
      expect(answer.status).toBe(200);
      seen.push(...ids(answer));
      // Newer rows of the same filter arrive meanwhile: they sort before page one and never show up later.
      await newSession({ metadata: { batch } });
      cursor = answer.body.pagination.next_cursor ?? undefined;
      // The cursor row leaves the status filter (ended by its merchant): its place still holds.
      if (cursor) expect((await rest('POST', `/payments/sessions/${cursor}/expire`)).status).toBe(200);
      if (!answer.body.pagination.has_more) break;
    }
    expect(seen).toEqual([...made].reverse());
  });

  it('filters refunds, deliveries, mandates and charges, with metadata on each and in their webhooks', async () => {
    const payer = await alpha.customer({ balance: 80_000 });
    const paid = await paidSession(t, merchant.apiKey, shop, payer, 9_000);
    const refund = async (body: Record<string, unknown>) => {
      const made = await rest('POST', `/payments/sessions/${paid}/refunds`, body);
      expect(made.status).toBe(201);
      return refundSettles(t, merchant.apiKey, made.body.refund_id);
    };
    const r1 = await refund({ amount: 1_000, reference: 'ret-1', metadata: { rma: '11' } });
    const r2 = await refund({ amount: 2_000, reference: 'ret-2', metadata: { rma: '12' } });
    expect(r1.metadata).toEqual({ rma: '11' });
    const refunds = (params: Record<string, string>) => rest('GET', `/payments/sessions/${paid}/refunds${q(params)}`);
    expect(ids(await refunds({ 'metadata[rma]': '12' }), 'refunds')).toEqual([r2.refund_id]);
    expect(ids(await refunds({ reference: 'ret-1', status: 'COMPLETED' }), 'refunds')).toEqual([r1.refund_id]);
    expect(ids(await refunds({ status: 'FAILED' }), 'refunds')).toEqual([]);
    const patched = await rest('PATCH', `/refunds/${r1.refund_id}`, { metadata: { rma: '', ticket: 'T-9' } });
    expect(patched.body.metadata).toEqual({ ticket: 'T-9' });
    const refundEvent = await receiver.waitFor(
      (w) => w.envelope.event === 'refund.completed' && w.envelope.data.refund_id === r2.refund_id,
    );
    expect(refundEvent.envelope.data.metadata).toEqual({ rma: '12' });

    // Deliveries: by event kind, status and created range.
    const deliveries = (params: Record<string, string>) =>
      rest('GET', `/webhooks/deliveries${q({ limit: 100, ...params })}`);
    const refundDeliveries = (await deliveries({ event: 'refund.completed' })).body.deliveries as Array<
      Record<string, any>
    >;
    expect(refundDeliveries.length).toBeGreaterThanOrEqual(2);
    expect(new Set(refundDeliveries.map((delivery) => delivery.event))).toEqual(new Set(['refund.completed']));
    expect((await deliveries({ created_from: '2999-01-01' })).body.deliveries).toEqual([]);
    expect((await deliveries({ status: 'FAILED' })).body.deliveries).toEqual([]);

    // Mandates and their charges.
    const customer = await alpha.customer({ balance: 40_000 });
    const mandate = async (metadata: Record<string, string>) => {
      const created = await rest('POST', '/recurring/mandates', {
        customer_alias: customer.alias,
        amount: 3_000,
        currency: 'LYD',
        interval: 'monthly',
        start_date: new Date().toISOString().slice(0, 10),
        metadata,
      });
      expect(created.status).toBe(201);
      return created.body as Record<string, any>;
    };
    const m1 = await mandate({ plan: 'gold' });
    const m2 = await mandate({ plan: 'silver' });
    expect(
      (await call(base, 'POST', `/recurring/mandates/${m1.mandate_id}/confirm`, { body: { otp: customer.otp } }))
        .status,
    ).toBe(200);
    const mandates = (params: Record<string, string>) => rest('GET', `/recurring/mandates${q(params)}`);
    expect(ids(await mandates({ status: 'ACTIVE', 'metadata[plan]': 'gold' }), 'mandates')).toEqual([m1.mandate_id]);
    expect(ids(await mandates({ status: 'PENDING_CONFIRMATION', 'metadata[plan]': 'silver' }), 'mandates')).toEqual([
      m2.mandate_id,
    ]);
    const activated = await receiver.waitFor(
      (w) => w.envelope.event === 'mandate.activated' && w.envelope.data.mandate_id === m1.mandate_id,
    );
    expect(activated.envelope.data.metadata).toEqual({ plan: 'gold' });
    expect(
      (await rest('PATCH', `/recurring/mandates/${m2.mandate_id}`, { metadata: { plan: 'bronze' } })).body.metadata,
    ).toEqual({ plan: 'bronze' });

    const charged = await rest('POST', `/recurring/mandates/${m1.mandate_id}/charge`, {
      amount: 2_500,
      reference: 'inv-7',
      metadata: { invoice: '7' },
    });
    expect([charged.status, charged.body.metadata]).toEqual([201, { invoice: '7' }]);
    const charges = (params: Record<string, string>) =>
      rest('GET', `/recurring/mandates/${m1.mandate_id}/charges${q(params)}`);
    expect(ids(await charges({ 'metadata[invoice]': '7', reference: 'inv-7' }), 'charges')).toEqual([
      charged.body.charge_id,
    ]);
    expect(ids(await charges({ 'metadata[invoice]': '8' }), 'charges')).toEqual([]);
    const chargePatch = await rest('PATCH', `/recurring/mandates/${m1.mandate_id}/charges/${charged.body.charge_id}`, {
      metadata: { paid: 'yes' },
    });
    expect(chargePatch.body.metadata).toEqual({ invoice: '7', paid: 'yes' });
    expectError(
      await rest('PATCH', `/recurring/mandates/${m2.mandate_id}/charges/${charged.body.charge_id}`, {
        metadata: { paid: 'no' },
      }),
      404,
      'MANDATE_CHARGE_NOT_FOUND',
    );
    const chargeEvent = await receiver.waitFor(
      (w) => w.envelope.event === 'mandate.charge.completed' && w.envelope.data.charge_id === charged.body.charge_id,
    );
    expect(chargeEvent.envelope.data.metadata).toEqual({ invoice: '7' });
  });
});
