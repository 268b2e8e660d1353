import type { EntityManager } from '@mikro-orm/postgresql';
import type { Database } from '@gateway/db';
import { newId } from '@gateway/kernel';
import { deliveries, type ClaimedDelivery, type NewEvent } from './delivery.repository';
import { bankAudience, OPERATOR_AUDIENCE } from './webhook-audience';
import { openWebhookDatabase } from '../webhook-test-database';

/**
 * Endpoints in the intake's one statement: the event logged whatever happens, one delivery per
 * endpoint whose world and filter take it, none for a disabled one; order kept per endpoint;
 * replay and retention. Asserted on the rows themselves.
 */
describe('webhook endpoints in the delivery statements', () => {
  let db: Database;
  let em: () => EntityManager;
  let closeDatabase: () => Promise<void>;
  const lease = () => new Date(Date.now() + 60_000);
  const claimAll = async () =>
    (
      await deliveries.claimDue(db.knex, {
        limit: 100,
        candidates: 500,
        perAudience: 100,
        load: new Map(),
        leaseUntil: lease(),
      })
    ).claimed;
  const event = (
    audienceId: string,
    aggregateId: string,
    sequence: number | null,
    eventKind = 'consent.granted',
    livemode = true,
  ): NewEvent => ({
    eventId: newId('event'),
    eventKind,
    audienceId,
    aggregateId,
    sequence,
    livemode,
    payload: JSON.stringify({ event: eventKind }),
    now: new Date(),
    deliveryIds: Array.from({ length: 4 }, () => newId('delivery')),
    primaryUrlSet: false,
  });
  const endpoint = async (
    audienceId: string,
    enabledEvents: string[],
    options: { status?: string; livemode?: boolean } = {},
  ): Promise<string> => {
    const id = newId('webhookEndpoint');
    await db.knex('payments.webhook_endpoints').insert({
      id,
      audience_id: audienceId,
      livemode: options.livemode ?? true,
      url: `http://127.0.0.1:1/${id}`,
      enabled_events: JSON.stringify(enabledEvents),
      description: null,
      status: options.status ?? 'ENABLED',
      secret_sealed: `sealed-${id}`,
      created_at: new Date(),
      updated_at: new Date(),
    });
    return id;
  };
  const done = (claimed: ClaimedDelivery, status: 'DELIVERED' | 'FAILED' | 'PENDING', next: Date | null = null) =>
    deliveries.recordAttempt(db.knex, claimed, {
      number: 1,
      status,
      url: null,
      statusCode: status === 'DELIVERED' ? 200 : 500,
      error: null,
      startedAt: new Date(),
      durationMs: 1,
      nextAttemptAt: next,
      deliveredAt: status === 'DELIVERED' ? new Date() : null,
    });
  const statusOf = async (id: string) =>
    ((await db.knex('payments.webhook_deliveries').where({ id }).first()) as { status: string }).status;

  beforeAll(async () => {
    ({ db, em, close: closeDatabase } = await openWebhookDatabase());
  });
  afterAll(async () => {
    await closeDatabase();
  });

  it('fans an event out to every enabled endpoint of its world whose filter takes it, and logs it even when none does', async () => {
    const tpp = newId('tpp');
    const granted = await endpoint(tpp, ['consent.granted', 'consent.revoked']);
    const all = await endpoint(tpp, ['*']);
    await endpoint(tpp, ['*'], { status: 'DISABLED' });
    await endpoint(tpp, ['*'], { livemode: false });
    await endpoint(newId('tpp'), ['*']);

    const first = await deliveries.intake(db.knex, 'tpp', event(tpp, newId('consent'), null), lease());
    expect(first?.stored).toBe(true);
    expect(first?.deliveries.map((row) => row.endpoint_id).sort()).toEqual([all, granted].sort());
    expect(first?.deliveries.find((row) => row.endpoint_id === all)).toMatchObject({
      endpoint_url: `http://127.0.0.1:1/${all}`,
      endpoint_sealed: `sealed-${all}`,
      lease_token: expect.any(String),
    });

    const expired = await deliveries.intake(
      db.knex,
      'tpp',
      event(tpp, newId('consent'), null, 'consent.expired'),
      null,
    );
    expect(expired?.deliveries.map((row) => row.endpoint_id)).toEqual([all]);

    // The primary endpoint (its URL set) comes first, with the id we_<audience>.
    const withPrimary = await deliveries.intake(
      db.knex,
      'tpp',
      { ...event(tpp, newId('consent'), null, 'consent.expired'), primaryUrlSet: true },
      null,
    );
    expect(withPrimary?.deliveries.map((row) => [row.endpoint_id, row.endpoint_url])).toEqual([
      [`we_${tpp}`, null],
      [all, `http://127.0.0.1:1/${all}`],
    ]);

    // No endpoint at all: logged, nothing to deliver.
    const lonely = newId('tpp');
    const logged = event(lonely, newId('consent'), 1);
    expect(await deliveries.intake(db.knex, 'tpp', logged, lease())).toEqual({
      target: null,
      stored: true,
      deliveries: [],
    });
    expect(await db.knex('payments.webhook_events').where({ id: logged.eventId }).first()).toMatchObject({
      audience_id: lonely,
      kind: 'consent.granted',
      sequence: 1,
    });
  });

  it("delivers a bank's and the operator's liquidity events to their own endpoints of the event's world, once, and never holds a suspended bank's", async () => {
    const handle = `bank-${newId('event').slice(4, 12).toLowerCase()}`;
    const bank = bankAudience(handle);
    const bankLive = await endpoint(bank, ['liquidity.threshold_reached']);
    await endpoint(bank, ['*'], { livemode: false });
    const operatorAll = await endpoint(OPERATOR_AUDIENCE, ['*']);
    // The bank is suspended: the vault lists its handle, which is not its audience id.
    await db.knex('auth.suspended_owners').insert({ owner_id: handle, suspended_at: new Date() });
    const crossing = (audienceId: string, kind: string) => ({
      ...event(audienceId, `${handle}:LYD`, 1, kind),
      primaryUrlSet: undefined,
    });

    const toBank = crossing(bank, 'liquidity.threshold_reached');
    const taken = await deliveries.intake(db.knex, 'bank', toBank, lease());
    expect(taken?.deliveries).toMatchObject([{ endpoint_id: bankLive, held: false, lease_token: expect.any(String) }]);
    // The bus hands it over again: the same event, nothing more.
    expect(await deliveries.intake(db.knex, 'bank', toBank, lease())).toMatchObject({ stored: false, deliveries: [] });
    // Its cap_reached is not among the live endpoint's events: logged only.
    const capped = await deliveries.intake(db.knex, 'bank', crossing(bank, 'liquidity.cap_reached'), null);
    expect(capped).toMatchObject({ stored: true, deliveries: [] });

    const toOperator = crossing(OPERATOR_AUDIENCE, 'liquidity.cap_reached');
    const operator = await deliveries.intake(
      db.knex,
      'operator',
      { ...toOperator, aggregateId: `operator:${handle}:LYD` },
      null,
    );
    expect(operator?.deliveries.map((row) => [row.endpoint_id, row.held])).toEqual([[operatorAll, false]]);
    // Due, not HELD, although the bank is suspended.
    expect((await claimAll()).map((row) => row.endpoint_id)).toContain(operatorAll);
    expect(await db.knex('payments.webhook_deliveries').where({ audience_id: bank }).pluck('status')).toEqual([
      'PENDING',
    ]);
    await db.knex('auth.suspended_owners').where({ owner_id: handle }).del();
  });

  it('keeps order per endpoint: a dead endpoint holds back its own later events only, and a filter that skips the previous event does not wait for it', async () => {
    const tpp = newId('tpp');
    const [dead, alive] = [await endpoint(tpp, ['*']), await endpoint(tpp, ['*'])];
    const onlyRevoked = await endpoint(tpp, ['consent.revoked']);
    const consent = newId('consent');
    await deliveries.intake(db.knex, 'tpp', event(tpp, consent, 1), null);
    const firsts = (await claimAll()).filter((row) => row.audience_id === tpp);
    expect(firsts.map((row) => row.endpoint_id).sort()).toEqual([alive, dead].sort());
    // The dead endpoint's first delivery is retrying; the live one's went through.
    await done(
      firsts.find((row) => row.endpoint_id === dead)!,
      'PENDING',
      new Date(Date.now() + 60_000),
    );
    await done(
      firsts.find((row) => row.endpoint_id === alive)!,
      'DELIVERED',
    );

    await deliveries.intake(db.knex, 'tpp', event(tpp, consent, 2, 'consent.revoked'), null);
    const seconds = (await claimAll()).filter((row) => row.audience_id === tpp);
    // The filtered endpoint never had event 1 and goes at once: event 1 is logged, it is not waited for.
    expect(seconds.map((row) => row.endpoint_id).sort()).toEqual([alive, onlyRevoked].sort());
  });

  it('requeues failed deliveries of a window to one endpoint, and when asked those it never had and those delivered; never a pending one', async () => {
    const tpp = newId('tpp');
    const failing = await endpoint(tpp, ['*']);
    const from = new Date(Date.now() - 1000);
    const [one, two, three] = [1, 2, 3].map(() => event(tpp, newId('consent'), null));
    for (const each of [one!, two!, three!]) await deliveries.intake(db.knex, 'tpp', each, null);
    const claimed = (await claimAll()).filter((row) => row.endpoint_id === failing);
    const byEvent = (id: string) => claimed.find((row) => row.event_id === id)!;
    await done(byEvent(one!.eventId), 'FAILED');
    await done(byEvent(two!.eventId), 'DELIVERED');
    await done(byEvent(three!.eventId), 'PENDING', new Date(Date.now() + 60_000));
    const window = {
      endpoint: { id: failing, audienceId: tpp, livemode: true, enabledEvents: ['*'] },
      from,
      to: new Date(Date.now() + 1000),
    };
    const none = { missing: false, delivered: false };

    expect(await deliveries.requeue(em(), window, none)).toBe(1);
    const again = await db
      .knex('payments.webhook_deliveries')
      .where({ id: byEvent(one!.eventId).id })
      .first();
    expect(again).toMatchObject({ status: 'PENDING', replayed_at: expect.any(Date), event_id: one!.eventId });
    const [reclaimed] = (await claimAll()).filter((row) => row.endpoint_id === failing);
    expect(reclaimed).toMatchObject({ id: byEvent(one!.eventId).id });
    // Its attempt's record clears the replay's mark.
    await done(reclaimed!, 'DELIVERED');
    const recorded = await db.knex('payments.webhook_deliveries').where({ id: reclaimed!.id }).first();
    expect(recorded.replayed_at).toBeNull();
    // Nothing failed any more; DELIVERED ones only when asked; the PENDING one never.
    expect(await deliveries.requeue(em(), window, none)).toBe(0);
    expect(await deliveries.requeue(em(), window, { missing: true, delivered: false })).toBe(0);
    expect(await deliveries.requeue(em(), window, { missing: false, delivered: true })).toBe(2);
    expect(await statusOf(byEvent(three!.eventId).id)).toBe('PENDING');
    const pendingRow = await db
      .knex('payments.webhook_deliveries')
      .where({ id: byEvent(three!.eventId).id })
      .first();
    expect(pendingRow.replayed_at).toBeNull();

    // An endpoint added afterwards gets the window's events it takes when asked for those it never had.
    const later = await endpoint(tpp, ['consent.granted']);
    const laterWindow = { ...window, endpoint: { ...window.endpoint, id: later, enabledEvents: ['consent.granted'] } };
    expect(await deliveries.requeue(em(), laterWindow, { missing: true, delivered: false })).toBe(3);
    const made = await db.knex('payments.webhook_deliveries').where({ endpoint_id: later }).orderBy('event_id');
    expect(made.map((row) => row.event_id).sort()).toEqual([one!.eventId, two!.eventId, three!.eventId].sort());
    expect(made[0]).toMatchObject({ status: 'PENDING', attempts: 0, replayed_at: expect.any(Date) });
    // A window with no events: none.
    const past = { ...laterWindow, from: new Date('2020-01-01T00:00:00Z'), to: new Date('2020-01-02T00:00:00Z') };
    expect(await deliveries.requeue(em(), past, { missing: true, delivered: true })).toBe(0);
  });

  it('prunes events past retention in batches, and settled deliveries with their attempts; a pending one stays', async () => {
    const tpp = newId('tpp');
    const oldEvent = () => ({
      ...event(tpp, newId('consent'), null),
      now: new Date('2020-01-01T00:00:00Z'),
      primaryUrlSet: true,
    });
    const [settled, pending] = [oldEvent(), oldEvent()];
    for (const old of [settled, pending]) await deliveries.intake(db.knex, 'tpp', old, null);
    const recent = { ...event(tpp, newId('consent'), null), primaryUrlSet: true };
    await deliveries.intake(db.knex, 'tpp', recent, null);
    const [failed] = await db
      .knex('payments.webhook_deliveries')
      .where({ event_id: settled.eventId })
      .update({ status: 'FAILED', attempts: 1 })
      .returning('id');
    await db.knex('payments.webhook_attempts').insert({
      delivery_id: failed.id,
      number: 1,
      url: 'https://tpp.example/hooks',
      started_at: settled.now,
      duration_ms: 1,
      status_code: 500,
    });
    // Batches of one: the job goes on while a batch was full.
    const before = new Date('2021-01-01T00:00:00Z');
    expect(await deliveries.pruneLog(db.knex, before, 1)).toEqual({ events: 1, deliveries: 1 });
    while (Object.values(await deliveries.pruneLog(db.knex, before, 1)).some((n) => n === 1));
    expect(await db.knex('payments.webhook_events').where({ audience_id: tpp }).pluck('id')).toEqual([recent.eventId]);
    const left = await db.knex('payments.webhook_deliveries').where({ audience_id: tpp }).orderBy('event_id');
    expect(left.map((row) => row.event_id).sort()).toEqual([pending.eventId, recent.eventId].sort());
    expect(await db.knex('payments.webhook_attempts').where({ delivery_id: failed.id })).toEqual([]);
  });
});
