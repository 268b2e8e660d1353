import type { Database } from '@gateway/db';
import { newId } from '@gateway/kernel';
import { deliveries, type AttemptRecord, type ClaimedDelivery, type NewEvent } from './delivery.repository';
import { openWebhookDatabase } from '../webhook-test-database';

/**
 * The intake's and the worker's statements against the database: each folds several steps into
 * one, so the order, the per-audience cap, the lease and the fencing token are asserted here on
 * the rows themselves, not only through a whole payment.
 */
describe('webhook delivery statements', () => {
  let db: Database;
  let closeDatabase: () => Promise<void>;
  const lease = () => new Date(Date.now() + 60_000);
  const claimDue = (
    options: { limit?: number; perAudience?: number; load?: Map<string, number>; leaseUntil?: Date } = {},
  ) =>
    deliveries.claimDue(db.knex, {
      limit: options.limit ?? 100,
      candidates: 500,
      perAudience: options.perAudience ?? 10,
      load: options.load ?? new Map(),
      leaseUntil: options.leaseUntil ?? lease(),
    });
  /** A merchant row with a primary webhook URL or none. */
  const merchant = (url: string | null) => ({
    id: newId('merchant'),
    name: 'm',
    mode: 'test',
    webhook_url: url,
    webhook_secret_sealed: 'sealed',
    created_at: new Date(),
    updated_at: new Date(),
  });
  const event = (audienceId: string, aggregateId: string, sequence: number | null): NewEvent => ({
    eventId: newId('event'),
    eventKind: 'payment.initiated',
    audienceId,
    aggregateId,
    sequence,
    livemode: true,
    payload: '{}',
    now: new Date(),
    deliveryIds: [newId('delivery'), newId('delivery')],
    primaryUrlSet: true,
  });
  const outcome = (status: AttemptRecord['status'], nextAttemptAt: Date | null = null): AttemptRecord => ({
    number: 1,
    status,
    url: 'http://127.0.0.1:1/hook',
    statusCode: status === 'DELIVERED' ? 200 : 500,
    error: null,
    startedAt: new Date(),
    durationMs: 1,
    nextAttemptAt,
    deliveredAt: status === 'DELIVERED' ? new Date() : null,
  });
  const tpp = () => newId('tpp');
  const ids = (claimed: ClaimedDelivery[]) => claimed.map((row) => row.id).sort();

  beforeAll(async () => {
    ({ db, close: closeDatabase } = await openWebhookDatabase());
  });
  afterAll(async () => {
    await closeDatabase();
  });

  it('intake takes a delivery at once only when it is next in its aggregate order, and a duplicate event inserts nothing', async () => {
    const audience = tpp();
    const first = event(audience, 'ops_a', 1);
    const taken = await deliveries.intake(db.knex, 'tpp', first, lease());
    expect(taken?.deliveries[0]?.lease_token).toEqual(expect.any(String));
    // The first is in flight (PENDING): the second is inserted, not taken.
    const second = await deliveries.intake(db.knex, 'tpp', event(audience, 'ops_a', 2), lease());
    expect(second?.deliveries).toMatchObject([{ lease_token: null }]);
    // The bus hands the first event over again: nothing new.
    expect(await deliveries.intake(db.knex, 'tpp', { ...first, deliveryIds: [newId('delivery')] }, lease())).toEqual({
      target: null,
      stored: false,
      deliveries: [],
    });
    // Without room (no lease given), even an event that is next is left for the worker.
    expect((await deliveries.intake(db.knex, 'tpp', event(audience, 'ops_b', 1), null))?.deliveries).toMatchObject([
      { lease_token: null },
    ]);
  });

  it('consecutive events in one intake: all logged, taken together when the first is next in order, else left together', async () => {
    const audience = tpp();
    const intakeOf = (events: NewEvent[]) =>
      deliveries.intakeRecording(db.knex, 'tpp', events, lease(), []).then(({ intake }) => intake!);
    // Events 1 and 2: the second's previous event is the first, in the same statement.
    const [one, two] = [event(audience, 'ops_batch', 1), event(audience, 'ops_batch', 2)];
    const both = await intakeOf([one!, two!]);
    expect(both.stored).toBe(true);
    expect(both.deliveries.map((row) => [row.event_id, row.lease_token !== null])).toEqual([
      [one!.eventId, true],
      [two!.eventId, true],
    ]);
    const logged = await db.knex('payments.webhook_events').whereIn('id', [one!.eventId, two!.eventId]);
    expect(logged).toHaveLength(2);
    // Events 4 and 5 while 3 is not logged yet: neither is next, both wait for a claim (in order).
    const [four, five] = [event(audience, 'ops_batch', 4), event(audience, 'ops_batch', 5)];
    const waiting = await intakeOf([four!, five!]);
    expect(waiting.deliveries.map((row) => [row.event_id, row.lease_token])).toEqual([
      [four!.eventId, null],
      [five!.eventId, null],
    ]);
  });

  it("intake takes a delivery behind the caller's own attempts in flight (their tokens), never behind another's", async () => {
    const audience = tpp();
    const first = await deliveries.intake(db.knex, 'tpp', event(audience, 'ops_held', 1), lease());
    const token = first!.deliveries[0]!.lease_token!;
    const behindMine = await deliveries.intakeRecording(
      db.knex,
      'tpp',
      [event(audience, 'ops_held', 2)],
      lease(),
      [],
      [token],
    );
    expect(behindMine.intake?.deliveries).toMatchObject([{ lease_token: expect.any(String) }]);
    // The third waits behind the first and the second: both held by the caller, so it is taken too.
    const [second] = behindMine.intake!.deliveries;
    const behindBoth = await deliveries.intakeRecording(
      db.knex,
      'tpp',
      [event(audience, 'ops_held', 3)],
      lease(),
      [],
      [token, second!.lease_token!],
    );
    expect(behindBoth.intake?.deliveries).toMatchObject([{ lease_token: expect.any(String) }]);
    // Held by someone else (tokens the caller does not have): left for a claim, as without any.
    const behindOthers = await deliveries.intakeRecording(
      db.knex,
      'tpp',
      [event(audience, 'ops_held', 4)],
      lease(),
      [],
      [newId('delivery')],
    );
    expect(behindOthers.intake?.deliveries).toMatchObject([{ lease_token: null }]);
  });

  it("intake reads the merchant's target in the same statement, logs the event without an endpoint, and nothing for an unknown merchant", async () => {
    const [withUrl, without] = [merchant('http://127.0.0.1:1/hook'), merchant(null)];
    await db.knex('payments.merchants').insert([withUrl, without]);
    const inserted = await deliveries.intake(
      db.knex,
      'merchant',
      event(withUrl.id, newId('paymentSession'), null),
      lease(),
    );
    expect(inserted).toMatchObject({
      target: { merchant_url: 'http://127.0.0.1:1/hook', sealed: 'sealed', session_url: null },
      stored: true,
      deliveries: [{ audience_id: withUrl.id, endpoint_id: `we_${withUrl.id}`, endpoint_url: null }],
    });
    expect(
      await deliveries.intake(db.knex, 'merchant', event(without.id, newId('paymentSession'), null), lease()),
    ).toEqual({
      target: { merchant_url: null, sealed: 'sealed', session_url: null },
      stored: true,
      deliveries: [],
    });
    expect(
      await deliveries.intake(db.knex, 'merchant', event(newId('merchant'), newId('paymentSession'), null), lease()),
    ).toBeUndefined();
    expect(
      Number((await db.knex('payments.webhook_deliveries').where('audience_id', without.id).count({ n: '*' }))[0]!.n),
    ).toBe(0);
  });

  it('groups of several aggregates in one intake statement: each one as its own intake would be', async () => {
    const [withUrl, without] = [merchant('http://127.0.0.1:2/hook'), merchant(null)];
    await db.knex('payments.merchants').insert([withUrl, without]);
    const session = newId('paymentSession');
    const [initiated, processing] = [event(withUrl.id, session, 1), event(withUrl.id, session, 2)];
    const sent: string[] = [];
    const count = (query: { sql: string }) => void sent.push(query.sql);
    db.knex.on('query', count);
    const { intakes } = await deliveries
      .intakeGroups(
        db.knex,
        'merchant',
        [
          { events: [initiated!, processing!], take: true },
          { events: [event(without.id, newId('paymentSession'), null)], take: true },
          { events: [event(newId('merchant'), newId('paymentSession'), null)], take: true },
          { events: [event(withUrl.id, newId('paymentSession'), 1)], take: false },
        ],
        lease(),
        [],
      )
      .finally(() => db.knex.off('query', count));
    expect(sent).toHaveLength(1);
    expect(intakes).toEqual([
      {
        target: { merchant_url: 'http://127.0.0.1:2/hook', sealed: 'sealed', session_url: null },
        stored: true,
        deliveries: [
          expect.objectContaining({ event_id: initiated!.eventId, lease_token: expect.any(String) }),
          expect.objectContaining({ event_id: processing!.eventId, lease_token: expect.any(String) }),
        ],
      },
      { target: { merchant_url: null, sealed: 'sealed', session_url: null }, stored: true, deliveries: [] },
      undefined,
      {
        target: { merchant_url: 'http://127.0.0.1:2/hook', sealed: 'sealed', session_url: null },
        stored: true,
        deliveries: [expect.objectContaining({ lease_token: null })],
      },
    ]);
    // A TPP's groups: one next in its order (taken), one behind an event not logged yet (left for a claim).
    const audience = tpp();
    const tppGroups = await deliveries.intakeGroups(
      db.knex,
      'tpp',
      [
        { events: [event(audience, 'ops_group_a', 1)], take: true },
        { events: [event(audience, 'ops_group_b', 3)], take: true },
      ],
      lease(),
      [],
    );
    expect(tppGroups.intakes.map((intake) => intake?.deliveries.map((row) => row.lease_token !== null))).toEqual([
      [true],
      [false],
    ]);
  });

  it("a claim reads each delivery's target in its own statement: the merchant's, a further endpoint's (enabled, disabled or deleted since), none for a TPP's primary", async () => {
    const merchantId = newId('merchant');
    await db.knex('payments.merchants').insert({
      id: merchantId,
      name: 'm',
      mode: 'live',
      webhook_url: 'http://127.0.0.1:1/merchant',
      webhook_secret_sealed: 'sealed-merchant',
      created_at: new Date(),
      updated_at: new Date(),
    });
    const endpoint = async () => {
      const id = newId('webhookEndpoint');
      await db.knex('payments.webhook_endpoints').insert({
        id,
        audience_id: merchantId,
        livemode: true,
        url: `http://127.0.0.1:1/${id}`,
        enabled_events: JSON.stringify(['*']),
        description: null,
        status: 'ENABLED',
        secret_sealed: `sealed-${id}`,
        created_at: new Date(),
        updated_at: new Date(),
      });
      return { id };
    };
    const [enabled, disabled, deleted] = [await endpoint(), await endpoint(), await endpoint()];
    // Left for the worker (no lease at intake): one delivery per endpoint, the merchant's primary first.
    const merchantEvent = { ...event(merchantId, newId('paymentSession'), null), deliveryIds: [] };
    expect((await deliveries.intake(db.knex, 'merchant', merchantEvent, null))?.deliveries).toHaveLength(4);
    const tppId = tpp();
    await deliveries.intake(db.knex, 'tpp', event(tppId, 'ops_target', null), null);
    // Changed after the event, before the claim: the claim's read is what the attempt uses.
    await db.knex('payments.webhook_endpoints').where('id', disabled.id).update({ status: 'DISABLED' });
    await db.knex('payments.webhook_endpoints').where('id', deleted.id).delete();
    await db.knex('payments.merchants').where('id', merchantId).update({ webhook_secret_sealed: 'sealed-rotated' });

    const { claimed } = await claimDue();
    const readOf = (endpointId: string) => claimed.find((row) => row.endpoint_id === endpointId)?.target_read;
    expect(readOf(`we_${merchantId}`)).toEqual({
      merchant: { merchant_url: 'http://127.0.0.1:1/merchant', sealed: 'sealed-rotated', session_url: null },
    });
    expect(readOf(enabled.id)).toEqual({
      endpoint: { url: `http://127.0.0.1:1/${enabled.id}`, secret_sealed: `sealed-${enabled.id}`, status: 'ENABLED' },
    });
    expect(readOf(disabled.id)).toMatchObject({ endpoint: { status: 'DISABLED' } });
    expect(readOf(deleted.id)).toEqual({ endpoint: null });
    // A TPP's primary target is open-banking's: read for the attempt, through the router.
    const tppDelivery = claimed.find((row) => row.endpoint_id === `we_${tppId}`);
    expect(tppDelivery).toBeDefined();
    expect(tppDelivery!.target_read).toBeUndefined();
  });

  it('claims in aggregate order: a later event waits while an earlier one is retrying, and goes once it is delivered', async () => {
    const audience = tpp();
    const aggregate = newId('paymentSession');
    for (const sequence of [1, 2]) await deliveries.intake(db.knex, 'tpp', event(audience, aggregate, sequence), null);
    const mine = (claimed: ClaimedDelivery[]) => claimed.filter((row) => row.audience_id === audience);
    const [first] = mine((await claimDue()).claimed);
    expect(first).toBeDefined();
    expect(mine((await claimDue()).claimed)).toEqual([]); // the first is held: nothing else of the aggregate
    // Refused and retried later: still PENDING, so the second still waits.
    expect(
      (await deliveries.recordAttempt(db.knex, first!, outcome('PENDING', new Date(Date.now() + 60_000)))).recorded,
    ).toBe(true);
    expect(mine((await claimDue()).claimed)).toEqual([]);
    await db
      .knex('payments.webhook_deliveries')
      .where('id', first!.id)
      .update({ next_attempt_at: new Date(Date.now() - 1000) });
    const [again] = mine((await claimDue()).claimed);
    expect(again?.id).toBe(first!.id);
    // Delivered: the worker is told that a later delivery of the aggregate waits for it.
    expect(await deliveries.recordAttempt(db.knex, again!, outcome('DELIVERED'))).toEqual({
      recorded: true,
      laterPending: true,
    });
    const [second] = mine((await claimDue()).claimed);
    expect(second?.event_id).not.toBe(first!.event_id);
  });

  it('caps each audience at its room less what is in flight, and reports that more were due', async () => {
    const [busy, other] = [tpp(), tpp()];
    for (let i = 0; i < 3; i += 1)
      await deliveries.intake(db.knex, 'tpp', event(busy, newId('paymentSession'), null), null);
    await deliveries.intake(db.knex, 'tpp', event(other, newId('paymentSession'), null), null);
    const { claimed, candidates } = await claimDue({ perAudience: 2, load: new Map([[busy, 1]]) });
    const per = (audience: string) => claimed.filter((row) => row.audience_id === audience).length;
    expect([per(busy), per(other)]).toEqual([1, 1]);
    expect(candidates).toBeGreaterThan(claimed.length);
    // The rest of the busy audience's goes to the next claim.
    const next = await claimDue({ perAudience: 2 });
    expect(next.claimed.filter((row) => row.audience_id === busy)).toHaveLength(2);
  });

  it('two dispatchers racing for the same due rows take each once, and a stale owner cannot record after a takeover', async () => {
    const audience = tpp();
    for (let i = 0; i < 20; i += 1)
      await deliveries.intake(db.knex, 'tpp', event(audience, newId('paymentSession'), null), null);
    const racing = await Promise.all([
      claimDue({ perAudience: 100 }),
      claimDue({ perAudience: 100 }),
      claimDue({ perAudience: 100 }),
    ]);
    const taken = racing.flatMap(({ claimed }) => claimed).filter((row) => row.audience_id === audience);
    expect(taken).toHaveLength(20);
    expect(new Set(ids(taken)).size).toBe(20);

    // A claim that lapsed is taken over with a new token; the first owner's outcome is refused.
    const stale = taken[0]!;
    await db
      .knex('payments.webhook_deliveries')
      .where('id', stale.id)
      .update({ lease_until: new Date(Date.now() - 1000) });
    const [takeover] = (await claimDue()).claimed.filter((row) => row.id === stale.id);
    expect(takeover?.lease_token).not.toBe(stale.lease_token);
    expect((await deliveries.recordAttempt(db.knex, stale, outcome('DELIVERED'))).recorded).toBe(false);
    expect(await deliveries.recordAttempt(db.knex, takeover!, outcome('DELIVERED'))).toEqual({
      recorded: true,
      laterPending: false,
    });
  });
  it("records attempts riding on the next event's intake: the event after a delivered one is taken at once, a stale record is refused", async () => {
    const audience = tpp();
    const aggregate = newId('paymentSession');
    const taken = await deliveries.intake(db.knex, 'tpp', event(audience, aggregate, 1), lease());
    const first = { ...taken!.deliveries[0]!, lease_token: taken!.deliveries[0]!.lease_token! };
    // A stale record (another aggregate's delivery, taken over since) rides along and changes nothing.
    const other = await deliveries.intake(db.knex, 'tpp', event(audience, newId('paymentSession'), null), lease());
    const stale = { ...other!.deliveries[0]!, lease_token: 'taken-over' };
    const { intake, recorded } = await deliveries.intakeRecording(
      db.knex,
      'tpp',
      [event(audience, aggregate, 2)],
      lease(),
      [
        { delivery: first, attempt: outcome('DELIVERED') },
        { delivery: stale, attempt: outcome('DELIVERED') },
      ],
    );
    expect(recorded).toEqual(
      new Map([
        [first.id, { recorded: true, laterPending: false }],
        [stale.id, { recorded: false, laterPending: false }],
      ]),
    );
    // Without the record in the same statement the first would still be PENDING, and the second left for a claim.
    expect(intake?.deliveries).toMatchObject([{ lease_token: expect.any(String) }]);
    expect(await db.knex('payments.webhook_deliveries').where('id', first.id).first()).toMatchObject({
      status: 'DELIVERED',
      attempts: 1,
      lease_token: null,
    });
    expect(await db.knex('payments.webhook_attempts').where('delivery_id', first.id).select('number')).toEqual([
      { number: 1 },
    ]);
    expect(await db.knex('payments.webhook_deliveries').where('id', stale.id).first()).toMatchObject({
      status: 'PENDING',
      attempts: 0,
    });
  });

  it('records attempts alone in one statement, telling which claims were still held and which have a later delivery waiting', async () => {
    const audience = tpp();
    const aggregate = newId('paymentSession');
    const firstTaken = await deliveries.intake(db.knex, 'tpp', event(audience, aggregate, 1), lease());
    await deliveries.intake(db.knex, 'tpp', event(audience, aggregate, 2), lease()); // waits behind the first
    const lone = await deliveries.intake(db.knex, 'tpp', event(audience, newId('paymentSession'), null), lease());
    const held = (intaken: typeof lone) => ({
      ...intaken!.deliveries[0]!,
      lease_token: intaken!.deliveries[0]!.lease_token!,
    });
    const [first, single] = [held(firstTaken), held(lone)];
    expect(
      await deliveries.recordAttempts(db.knex, [
        { delivery: first, attempt: outcome('DELIVERED') },
        { delivery: single, attempt: outcome('DELIVERED') },
      ]),
    ).toEqual(
      new Map([
        [first.id, { recorded: true, laterPending: true }],
        [single.id, { recorded: true, laterPending: false }],
      ]),
    );
    // Written once: the same records again find their claims gone.
    expect([
      ...(await deliveries.recordAttempts(db.knex, [{ delivery: first, attempt: outcome('DELIVERED') }])).values(),
    ]).toEqual([{ recorded: false, laterPending: false }]);
  });

  it('an intake for an unknown merchant logs nothing and still records what rode on it', async () => {
    const audience = tpp();
    const taken = await deliveries.intake(db.knex, 'tpp', event(audience, newId('paymentSession'), null), lease());
    const delivery = { ...taken!.deliveries[0]!, lease_token: taken!.deliveries[0]!.lease_token! };
    const { intake, recorded } = await deliveries.intakeRecording(
      db.knex,
      'merchant',
      [event(newId('merchant'), newId('paymentSession'), null)],
      lease(),
      [{ delivery, attempt: outcome('DELIVERED') }],
    );
    expect(intake).toBeUndefined();
    expect(recorded.get(delivery.id)).toEqual({ recorded: true, laterPending: false });
  });
});
