import type { Database } from '@gateway/db';
import { newId } from '@gateway/kernel';
import { deliveries, type AttemptRecord, type ClaimedDelivery, type NewEvent } from './delivery.repository';
import { openWebhookDatabase } from '../webhook-test-database';

/**
 * Issue 46, "Suspension holds webhooks": a suspended owner's deliveries wait HELD (not sent, not
 * retried, no attempt counted) and go out after resume, each once, in order per aggregate.
 * Asserted on the rows the intake and the claim write, with the vault's list of suspended owners.
 */
describe('webhook deliveries held while their owner is suspended', () => {
  let db: Database;
  let closeDatabase: () => Promise<void>;
  const lease = () => new Date(Date.now() + 60_000);
  const claimDue = () =>
    deliveries.claimDue(db.knex, {
      limit: 100,
      candidates: 500,
      perAudience: 100,
      load: new Map(),
      leaseUntil: lease(),
    });
  const event = (audienceId: string, aggregateId: string, sequence: number | null): NewEvent => ({
    eventId: newId('event'),
    eventKind: 'consent.granted',
    audienceId,
    aggregateId,
    sequence,
    livemode: true,
    payload: JSON.stringify({ sequence }),
    now: new Date(),
    deliveryIds: [newId('delivery')],
    primaryUrlSet: true,
  });
  const delivered: AttemptRecord = {
    number: 1,
    status: 'DELIVERED',
    url: 'http://127.0.0.1:1/hook',
    statusCode: 200,
    error: null,
    startedAt: new Date(),
    durationMs: 1,
    nextAttemptAt: null,
    deliveredAt: new Date(),
  };
  const suspend = (ownerId: string) =>
    db.knex('auth.suspended_owners').insert({ owner_id: ownerId, suspended_at: new Date() });
  const resume = (ownerId: string) => db.knex('auth.suspended_owners').where({ owner_id: ownerId }).del();
  const rowsOf = (audienceId: string) =>
    db.knex('payments.webhook_deliveries').where({ audience_id: audienceId }).orderBy('sequence');
  const mine = (audienceId: string, claimed: ClaimedDelivery[]) =>
    claimed.filter((row) => row.audience_id === audienceId);

  beforeAll(async () => {
    ({ db, close: closeDatabase } = await openWebhookDatabase());
  });
  afterAll(async () => {
    await closeDatabase();
  });

  it('holds what a suspended owner is due, sends nothing, and after resume sends each once in aggregate order', async () => {
    const owner = newId('tpp');
    const other = newId('tpp');
    const aggregate = newId('consent');
    // Event 1 arrives before the suspension and is left for the worker (no room): due, PENDING.
    await deliveries.intake(db.knex, 'tpp', event(owner, aggregate, 1), null);
    await suspend(owner);
    // Events 2 and 3 arrive while suspended: inserted HELD, never taken at intake, nothing due.
    for (const sequence of [2, 3]) {
      const taken = await deliveries.intake(db.knex, 'tpp', event(owner, aggregate, sequence), lease());
      expect(taken?.deliveries).toMatchObject([{ held: true, lease_token: null }]);
    }
    await deliveries.intake(db.knex, 'tpp', event(other, newId('consent'), 1), null);

    // The claim holds the due one, takes nobody else's of the owner, and still serves others.
    const whileSuspended = await claimDue();
    expect(mine(owner, whileSuspended.claimed)).toEqual([]);
    expect(mine(other, whileSuspended.claimed)).toHaveLength(1);
    expect(whileSuspended.held).toBeGreaterThanOrEqual(1);
    expect(mine(owner, (await claimDue()).claimed)).toEqual([]);
    expect((await rowsOf(owner)).map((row) => [row.sequence, row.status, row.attempts, row.next_attempt_at])).toEqual([
      [1, 'HELD', 0, null],
      [2, 'HELD', 0, null],
      [3, 'HELD', 0, null],
    ]);

    // Resumed; an event that arrives before the release waits behind the held ones.
    await resume(owner);
    const fourth = await deliveries.intake(db.knex, 'tpp', event(owner, aggregate, 4), lease());
    expect(fourth?.deliveries).toMatchObject([{ held: false, lease_token: null }]);
    const release = await claimDue();
    expect(release.released).toBeGreaterThanOrEqual(3);
    expect(mine(owner, release.claimed)).toEqual([]);
    // One at a time, in order, each once.
    const sent: number[] = [];
    for (let round = 0; round < 6; round += 1) {
      const claimed = mine(owner, (await claimDue()).claimed);
      expect(claimed.length).toBeLessThanOrEqual(1);
      for (const delivery of claimed) {
        sent.push(JSON.parse(delivery.payload).sequence);
        await deliveries.recordAttempt(db.knex, delivery, delivered);
      }
    }
    expect(sent).toEqual([1, 2, 3, 4]);
    expect((await rowsOf(owner)).map((row) => [row.status, row.attempts])).toEqual([
      ['DELIVERED', 1],
      ['DELIVERED', 1],
      ['DELIVERED', 1],
      ['DELIVERED', 1],
    ]);
  });

  it('retention keeps a HELD delivery past 30 days, as a PENDING one', async () => {
    const owner = newId('tpp');
    await suspend(owner);
    const old = { ...event(owner, newId('consent'), null), now: new Date('2020-01-01T00:00:00Z') };
    await deliveries.intake(db.knex, 'tpp', old, null);
    while (Object.values(await deliveries.pruneLog(db.knex, new Date('2021-01-01T00:00:00Z'), 100)).some((n) => n > 0));
    expect(await rowsOf(owner)).toMatchObject([{ event_id: old.eventId, status: 'HELD' }]);
    await resume(owner);
  });

  it('a delivery retrying when its owner is suspended is held when it comes due, its attempts kept', async () => {
    const owner = newId('tpp');
    await deliveries.intake(db.knex, 'tpp', event(owner, newId('consent'), null), null);
    const [first] = mine(owner, (await claimDue()).claimed);
    await deliveries.recordAttempt(db.knex, first!, {
      ...delivered,
      status: 'PENDING',
      statusCode: 500,
      deliveredAt: null,
      nextAttemptAt: new Date(Date.now() - 1),
    });
    await suspend(owner);
    expect(mine(owner, (await claimDue()).claimed)).toEqual([]);
    expect(await rowsOf(owner)).toMatchObject([{ status: 'HELD', attempts: 1, next_attempt_at: null }]);
    await resume(owner);
    await claimDue();
    const [again] = mine(owner, (await claimDue()).claimed);
    expect(again).toMatchObject({ id: first!.id, attempts: 1 });
  });
});
