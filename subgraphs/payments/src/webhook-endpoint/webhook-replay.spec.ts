import type { EntityManager } from '@mikro-orm/postgresql';
import type { Database } from '@gateway/db';
import { GatewayError, newId } from '@gateway/kernel';
import { deliveries, type AttemptRecord, type ReplayWindow } from '../webhook/delivery.repository';
import { openWebhookDatabase } from '../webhook-test-database';
import { MAX_REPLAY_EVENTS, replayWindow, REPLAY_EVENTS_PER_MINUTE } from './webhook-replay';

/**
 * Issue 46, "Replay within bounds", on the rows: what a replay sends (FAILED by default; never a
 * delivery on its way; a delivered one only to a new endpoint), why it sent nothing, one replay of
 * an endpoint at a time, at most 1,000 events, and each event charged to the owner's budget.
 */
describe('webhook replay within bounds', () => {
  let db: Database;
  let em: () => EntityManager;
  let closeDatabase: () => Promise<void>;
  const old = { onlyFailed: false, newEndpoint: false };
  const attempt = (status: AttemptRecord['status']): AttemptRecord => ({
    number: 1,
    status,
    url: 'http://127.0.0.1:1/hook',
    statusCode: status === 'DELIVERED' ? 200 : 500,
    error: null,
    startedAt: new Date(),
    durationMs: 1,
    nextAttemptAt: status === 'PENDING' ? new Date(Date.now() + 60_000) : null,
    deliveredAt: status === 'DELIVERED' ? new Date() : null,
  });
  /** An owner with an endpoint and one event per status given, each delivered to it as said (missing: none). */
  const seeded = async (statuses: Array<AttemptRecord['status'] | 'missing'>): Promise<ReplayWindow> => {
    const audienceId = newId('tpp');
    const id = newId('webhookEndpoint');
    const from = new Date(Date.now() - 1000);
    for (const status of statuses) {
      const eventId = newId('event');
      await deliveries.intake(
        db.knex,
        'tpp',
        {
          eventId,
          eventKind: 'consent.granted',
          audienceId,
          aggregateId: newId('consent'),
          sequence: null,
          livemode: true,
          payload: '{}',
          now: new Date(),
          deliveryIds: [newId('delivery')],
          primaryUrlSet: false,
        },
        null,
      );
      if (status === 'missing') continue;
      await db.knex('payments.webhook_deliveries').insert({
        id: newId('delivery'),
        event_id: eventId,
        event_kind: 'consent.granted',
        audience_id: audienceId,
        endpoint_id: id,
        aggregate_id: newId('consent'),
        livemode: true,
        payload: '{}',
        status: 'PENDING',
        attempts: 0,
        next_attempt_at: new Date(),
        lease_until: lease,
        lease_token: `token-${eventId}`,
        created_at: new Date(),
        updated_at: new Date(),
      });
      const [row] = await db.knex('payments.webhook_deliveries').where({ event_id: eventId, endpoint_id: id });
      await deliveries.recordAttempt(db.knex, { ...row, lease_token: `token-${eventId}` }, attempt(status));
    }
    return {
      endpoint: { id, audienceId, livemode: true, enabledEvents: ['*'] },
      from,
      to: new Date(Date.now() + 1000),
    };
  };
  const lease = new Date(Date.now() + 600_000);
  const refusal = async (run: Promise<unknown>): Promise<GatewayError> => {
    const error = await run.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  };
  /** The replay's mark cleared, as the record of each queued delivery's attempt does. */
  const attempted = (window: ReplayWindow) =>
    db.knex('payments.webhook_deliveries').where({ endpoint_id: window.endpoint.id }).update({ replayed_at: null });

  beforeAll(async () => {
    ({ db, em, close: closeDatabase } = await openWebhookDatabase());
  });
  afterAll(async () => {
    await closeDatabase();
  });

  it('sends only FAILED deliveries by default, and says what it skipped', async () => {
    const window = await seeded(['FAILED', 'DELIVERED', 'PENDING', 'missing']);
    expect(await replayWindow(em(), window, { onlyFailed: true, newEndpoint: false })).toEqual({
      replayed: 1,
      events: 4,
      skippedDelivered: 1,
      skippedPending: 1,
      reason: null,
    });
    await attempted(window);
    // Nothing failed any more: the reason says so.
    expect(await replayWindow(em(), window, { onlyFailed: true, newEndpoint: false })).toMatchObject({
      replayed: 0,
      reason: 'NOTHING_FAILED',
    });
  });

  it('with only_failed false, an old endpoint gets what it never had and failed ones, never a DELIVERED or PENDING one again', async () => {
    const window = await seeded(['DELIVERED', 'DELIVERED', 'PENDING', 'missing', 'FAILED']);
    expect(await replayWindow(em(), window, old)).toEqual({
      replayed: 2,
      events: 5,
      skippedDelivered: 2,
      skippedPending: 1,
      reason: null,
    });
    const statuses = await db
      .knex('payments.webhook_deliveries')
      .where({ endpoint_id: window.endpoint.id })
      .pluck('status');
    expect(statuses.sort()).toEqual(['DELIVERED', 'DELIVERED', 'PENDING', 'PENDING', 'PENDING']);
    await attempted(window);
    // All delivered or on their way: nothing, and why.
    const delivered = await seeded(['DELIVERED', 'PENDING']);
    expect(await replayWindow(em(), delivered, old)).toEqual({
      replayed: 0,
      events: 2,
      skippedDelivered: 1,
      skippedPending: 1,
      reason: 'ALREADY_SENT',
    });
    const empty = { ...delivered, from: new Date('2020-01-01T00:00:00Z'), to: new Date('2020-01-02T00:00:00Z') };
    expect(await replayWindow(em(), empty, old)).toMatchObject({ replayed: 0, events: 0, reason: 'NO_EVENTS' });
  });

  it('a new endpoint asking for every event gets its DELIVERED ones again, still not one on its way', async () => {
    const window = await seeded(['DELIVERED', 'PENDING', 'FAILED']);
    expect(await replayWindow(em(), window, { onlyFailed: false, newEndpoint: true })).toMatchObject({
      replayed: 2,
      skippedDelivered: 0,
      skippedPending: 1,
    });
    // Only failed ones, though, even for a new endpoint, when that is what was asked.
    await attempted(window);
    await db
      .knex('payments.webhook_deliveries')
      .where({ endpoint_id: window.endpoint.id, status: 'PENDING' })
      .update({ status: 'DELIVERED' });
    expect(await replayWindow(em(), window, { onlyFailed: true, newEndpoint: true })).toMatchObject({
      replayed: 0,
      reason: 'NOTHING_FAILED',
    });
  });

  it('refuses a second replay of an endpoint while the first one still has events waiting for their attempt (409)', async () => {
    const window = await seeded(['FAILED', 'FAILED']);
    const [first, second] = await Promise.allSettled([
      replayWindow(em(), window, old),
      replayWindow(em(), window, old),
    ]);
    const outcomes = [first, second].map((settled) =>
      settled.status === 'fulfilled' ? settled.value.replayed : (settled.reason as GatewayError).code,
    );
    expect(outcomes.sort()).toEqual([2, 'WEBHOOK_REPLAY_IN_PROGRESS']);
    // Once one queued delivery's attempt is recorded it still runs; once all are, the endpoint is free.
    const [one] = await db.knex('payments.webhook_deliveries').where({ endpoint_id: window.endpoint.id }).pluck('id');
    await db.knex('payments.webhook_deliveries').where({ id: one }).update({ replayed_at: null });
    expect((await refusal(replayWindow(em(), window, old))).code).toBe('WEBHOOK_REPLAY_IN_PROGRESS');
    await attempted(window);
    expect(await replayWindow(em(), window, old)).toMatchObject({ replayed: 0, reason: 'ALREADY_SENT' });
  });

  it('refuses a window holding more than 1,000 events to send, naming from, and queues nothing', async () => {
    const window = await seeded(['missing']);
    const now = new Date();
    await db.knex('payments.webhook_events').insert(
      Array.from({ length: MAX_REPLAY_EVENTS }, () => ({
        id: newId('event'),
        audience_id: window.endpoint.audienceId,
        kind: 'consent.granted',
        livemode: true,
        aggregate_id: newId('consent'),
        sequence: null,
        payload: '{}',
        created_at: now,
      })),
    );
    const refused = await refusal(replayWindow(em(), window, old));
    expect([refused.code, refused.detail]).toEqual([
      'VALIDATION_ERROR',
      expect.stringMatching(/^from: the window holds 1001 events to send again, more than 1000 per replay/),
    ]);
    expect(await db.knex('payments.webhook_deliveries').where({ endpoint_id: window.endpoint.id })).toEqual([]);
  });

  it("charges each event sent to the owner's budget: beyond what is left, 429 with Retry-After and nothing queued", async () => {
    const window = await seeded(['FAILED', 'FAILED', 'FAILED']);
    // As if the owner had just replayed a full window: one point left.
    await db.knex('payments.webhook_replay_budgets').insert({
      audience_id: window.endpoint.audienceId,
      tokens: 1,
      updated_at: new Date(),
    });
    const refused = await refusal(replayWindow(em(), window, old));
    expect(refused.code).toBe('RATE_LIMITED');
    expect(refused.detail).toMatch(/would send 3 events/);
    // Two points missing at 300 a minute (5 a second): a second's wait.
    expect(refused.retryAfterSeconds).toBe(Math.ceil(2 / (REPLAY_EVENTS_PER_MINUTE / 60)));
    const statuses = await db
      .knex('payments.webhook_deliveries')
      .where({ endpoint_id: window.endpoint.id })
      .pluck('status');
    expect(statuses).toEqual(['FAILED', 'FAILED', 'FAILED']);
    // Refilled: three points taken.
    await db
      .knex('payments.webhook_replay_budgets')
      .where({ audience_id: window.endpoint.audienceId })
      .update({ updated_at: new Date(Date.now() - 60_000) });
    expect(await replayWindow(em(), window, old)).toMatchObject({ replayed: 3 });
    const [budget] = await db
      .knex('payments.webhook_replay_budgets')
      .where({ audience_id: window.endpoint.audienceId });
    expect(budget.tokens).toBeGreaterThanOrEqual(1 + REPLAY_EVENTS_PER_MINUTE - 3);
    expect(budget.tokens).toBeLessThan(1 + REPLAY_EVENTS_PER_MINUTE);
  });
});
