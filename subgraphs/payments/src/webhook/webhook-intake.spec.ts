import type { Knex } from '@mikro-orm/knex';
import type { PlatformEvent } from '@gateway/events';
import { newId, sealSecret } from '@gateway/kernel';
import type { DeliveryWorker } from './delivery-worker';
import { RidingRecords } from './delivery-records';
import { deliveries } from './delivery.repository';
import { WebhookIntake } from './webhook-intake';

/** The intake's grouping and caps, with the statement and the worker stood in for (the statement's SQL: delivery.repository.spec). */
describe('webhook intake: groups of several aggregates in one statement', () => {
  const sessionEvent = (merchant: string, session: string, sequence: number): PlatformEvent => ({
    id: newId('event'),
    kind: sequence === 1 ? 'payment.initiated' : 'payment.processing',
    aggregateType: 'payment_session',
    aggregateId: session,
    audience: merchant,
    createdAt: new Date().toISOString(),
    sequence,
    data: { session_id: session, livemode: true },
  });

  /** A worker with room for `perAudience` attempts of each audience, none in flight. */
  const workerWithRoom = (perAudience: number): DeliveryWorker =>
    ({
      hasRoomFor: (_audienceId: string, granted = { total: 0, audience: 0 }) => granted.audience < perAudience,
      newLease: () => new Date(Date.now() + 60_000),
      heldFor: () => [],
      launch: jest.fn(),
      records: new RidingRecords(async () => new Map(), 20),
      waitingBehind: jest.fn(),
      wake: jest.fn(),
      stop: async () => undefined,
    }) as unknown as DeliveryWorker;

  afterEach(() => jest.restoreAllMocks());

  it("takes the events of an audience's sessions that come in one turn in one statement, and no more of them than the audience has room for", async () => {
    const statements = jest.spyOn(deliveries, 'intakeGroups').mockImplementation(async (_knex, _audience, groups) => ({
      intakes: groups.map(() => undefined),
      recorded: new Map(),
    }));
    const intake = new WebhookIntake({} as Knex, workerWithRoom(2), async () => null, 'secret');
    const merchant = newId('merchant');
    const [a, b, c] = [newId('paymentSession'), newId('paymentSession'), newId('paymentSession')];
    const other = newId('merchant');
    await Promise.all([
      intake.take(sessionEvent(merchant, a, 1)),
      intake.take(sessionEvent(merchant, a, 2)),
      intake.take(sessionEvent(merchant, b, 1)),
      intake.take(sessionEvent(merchant, c, 1)),
      intake.take(sessionEvent(other, newId('paymentSession'), 1)),
    ]);
    expect(statements).toHaveBeenCalledTimes(1);
    const [, audience, groups, lease] = statements.mock.calls[0]!;
    expect(audience).toBe('merchant');
    expect(lease).toBeInstanceOf(Date);
    // Session a's two events form one group; the merchant's third session finds no room left.
    expect(groups.map((group) => [group.events.map((event) => event.aggregateId), group.take])).toEqual([
      [[a, a], true],
      [[b], true],
      [[c], false],
      [[expect.any(String)], true],
    ]);
  });

  it("waits for the intake of an aggregate's earlier events before its later ones join a statement", async () => {
    let release: () => void = () => undefined;
    const statements = jest.spyOn(deliveries, 'intakeGroups').mockImplementation(async (_knex, _audience, groups) => {
      if (statements.mock.calls.length === 1) await new Promise<void>((resolve) => (release = resolve));
      return { intakes: groups.map(() => undefined), recorded: new Map() };
    });
    const intake = new WebhookIntake({} as Knex, workerWithRoom(10), async () => null, 'secret');
    const merchant = newId('merchant');
    const session = newId('paymentSession');
    const first = intake.take(sessionEvent(merchant, session, 1));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(statements).toHaveBeenCalledTimes(1);
    // Its second event comes while the first's statement is under way: it waits for it.
    const second = intake.take(sessionEvent(merchant, session, 2));
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(statements).toHaveBeenCalledTimes(1);
    release();
    await Promise.all([first, second]);
    expect(statements.mock.calls.map(([, , groups]) => groups.map((group) => group.events[0]!.sequence))).toEqual([
      [1],
      [2],
    ]);
  });
  it("a group whose target cannot be opened fails alone: the statement's other groups are launched", async () => {
    const worker = workerWithRoom(10);
    const merchant = newId('merchant');
    const [broken, fine] = [newId('paymentSession'), newId('paymentSession')];
    jest.spyOn(deliveries, 'intakeGroups').mockImplementation(async (_knex, _audience, groups) => ({
      intakes: groups.map(({ events }) => ({
        target: {
          merchant_url: 'http://127.0.0.1:1/hook',
          sealed: events[0]!.aggregateId === broken ? 'garbage' : sealSecret('whsec_x', 'secret'),
          session_url: null,
        },
        stored: true,
        deliveries: [
          {
            id: newId('delivery'),
            event_id: events[0]!.eventId,
            audience_id: merchant,
            endpoint_id: `we_${merchant}`,
            aggregate_id: events[0]!.aggregateId,
            payload: '{}',
            attempts: 0,
            lease_token: 'token',
            held: false,
            endpoint_url: null,
            endpoint_sealed: null,
          },
        ],
      })),
      recorded: new Map(),
    }));
    const intake = new WebhookIntake({} as Knex, worker, async () => null, 'secret');
    const [ofBroken, ofFine] = await Promise.allSettled([
      intake.take(sessionEvent(merchant, broken, 1)),
      intake.take(sessionEvent(merchant, fine, 1)),
    ]);
    expect([ofBroken.status, ofFine.status]).toEqual(['rejected', 'fulfilled']);
    expect((worker.launch as jest.Mock).mock.calls.map(([delivery]) => delivery.aggregate_id)).toEqual([fine]);
  });

  it("logs an aggregate's later events after its earlier ones, even when the clock has not moved on", async () => {
    const logged: number[] = [];
    jest.spyOn(deliveries, 'intakeGroups').mockImplementation(async (_knex, _audience, groups) => {
      for (const { events } of groups) logged.push(...events.map((event) => event.now.getTime()));
      return { intakes: groups.map(() => undefined), recorded: new Map() };
    });
    jest.spyOn(Date, 'now').mockReturnValue(Date.parse('2026-11-30T12:00:00.000Z'));
    const intake = new WebhookIntake({} as Knex, workerWithRoom(10), async () => null, 'secret');
    const merchant = newId('merchant');
    const session = newId('paymentSession');
    await Promise.all([
      intake.take(sessionEvent(merchant, session, 1)),
      intake.take(sessionEvent(merchant, session, 2)),
    ]);
    await intake.take(sessionEvent(merchant, session, 3));
    expect(logged).toHaveLength(3);
    expect(logged[1]! - logged[0]!).toBe(1);
    expect(logged[2]! - logged[1]!).toBe(1);
  });
});
