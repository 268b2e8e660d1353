import { createServer, type Server } from 'node:http';
import type { Database } from '@gateway/db';
import { createMemoryBus, type EventBus, type PlatformEvent } from '@gateway/events';
import type { ServiceClient } from '@gateway/federation';
import { createLogger, newId, newSecret, sealSecret } from '@gateway/kernel';
import { deliveries } from './delivery.repository';
import { startWebhookDispatcher, type WebhookDispatcher } from './webhook-dispatcher';
import { openWebhookDatabase } from '../webhook-test-database';

/**
 * A session's events that reach the dispatcher together (the relay publishes processing and
 * completed in one pass) go to each endpoint in order: taken in one intake statement, or the later
 * one at its own intake behind the earlier one's attempt running in the same worker (its lane),
 * the later one is sent once the earlier one is delivered, and never before it when that one is
 * to be retried.
 */
describe('webhook lanes: events of one session taken together, sent in order', () => {
  const platformSecret = 'platform-secret-for-this-spec-0123456789';
  let db: Database;
  let closeDatabase: () => Promise<void>;
  let receiver: Server;
  let url: string;
  /** What the receiver saw, in order: the event id, when it came and the status it answered. */
  let seen: Array<{ id: string; status: number }>;
  /** How the receiver answers each request (by event id and attempt number there). */
  let answer: (id: string, nth: number) => { status: number; delayMs: number };

  const call = (async () => ({
    tppWebhookTarget: { url, sealedSecret: sealSecret(newSecret('whsec_'), platformSecret) },
  })) as unknown as ServiceClient;

  const start = (bus: EventBus, options: { pollIntervalMs: number; leaseMs: number }): Promise<WebhookDispatcher> =>
    startWebhookDispatcher({
      knex: db.knex,
      bus,
      platformSecret,
      call,
      production: false,
      privateTargets: true,
      logger: createLogger('delivery-lanes-spec', 'silent'),
      retryScheduleSeconds: [1, 60],
      attemptTimeoutMs: 5_000,
      ...options,
    });

  /** A dispatcher on a bus of its own, and two events of one payment order of a new TPP, not published yet. */
  const twoEventsOfAnOrder = async (options: { pollIntervalMs: number; leaseMs: number }) => {
    const bus = createMemoryBus();
    const dispatcher = await start(bus, options);
    const tpp = newId('tpp');
    const order = newId('paymentOrder');
    return {
      bus,
      dispatcher,
      processing: orderEvent(tpp, order, 1, 'payment_order.processing'),
      completed: orderEvent(tpp, order, 2, 'payment_order.completed'),
    };
  };

  const orderEvent = (tpp: string, order: string, sequence: number, kind: string): PlatformEvent => ({
    id: newId('event'),
    kind,
    aggregateType: 'payment_order',
    aggregateId: order,
    audience: tpp,
    createdAt: new Date().toISOString(),
    sequence,
    data: { payment_order_id: order, livemode: true },
  });

  /**
   * What the receiver saw of these events only: the tests share a database, and an attempt a test's
   * dispatcher was stopped in the middle of is sent again by the next one once its claim lapses.
   */
  const seenOf = (...events: PlatformEvent[]) => seen.filter(({ id }) => events.some((event) => event.id === id));

  const until = async (condition: () => boolean, ms = 10_000) => {
    const deadline = Date.now() + ms;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${JSON.stringify(seen)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };

  beforeAll(async () => {
    ({ db, close: closeDatabase } = await openWebhookDatabase());
    const attempts = new Map<string, number>();
    receiver = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => (body += chunk));
      request.on('end', () => {
        const { id } = JSON.parse(body) as { id: string };
        const nth = (attempts.get(id) ?? 0) + 1;
        attempts.set(id, nth);
        const { status, delayMs } = answer(id, nth);
        setTimeout(() => {
          seen.push({ id, status });
          response.statusCode = status;
          response.end();
        }, delayMs);
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`;
  });
  beforeEach(() => {
    seen = [];
    jest.restoreAllMocks();
  });
  afterAll(async () => {
    receiver.close();
    await closeDatabase();
  });

  // Slow first: the later one waits in the lane. Slow second: the first one's record rides alone
  // (RECORD_RIDES_WITHIN_MS) while the second is still being sent, which is the worker's own, so
  // nothing is claimed for it either (a busy machine's timing once claimed here for nothing).
  it.each([
    ['the earlier receiver slow', 200, 0],
    ['the later receiver slow', 0, 400],
  ])(
    'the later event is taken at intake and sent as soon as the earlier one is delivered, with no claim (%s)',
    async (_case, firstMs, secondMs) => {
      // No poll during the test: only a wake could claim, and the lane needs none.
      const claims = jest.spyOn(deliveries, 'claimDue');
      const { bus, dispatcher, processing, completed } = await twoEventsOfAnOrder({
        pollIntervalMs: 600_000,
        leaseMs: 3_000,
      });
      try {
        answer = (id) => ({ status: 200, delayMs: id === processing.id ? firstMs : secondMs });
        // The worker's first claim, at start, ended: any claim from here on is the test's.
        await until(() => claims.mock.calls.length === 1);
        await claims.mock.results[0]!.value;
        claims.mockClear();
        await Promise.all([bus.publish(processing), bus.publish(completed)]);
        await until(() => seenOf(processing, completed).length === 2);
        expect(seenOf(processing, completed)).toEqual([
          { id: processing.id, status: 200 },
          { id: completed.id, status: 200 },
        ]);
        expect(claims).not.toHaveBeenCalled();
      } finally {
        await dispatcher.stop();
      }
    },
  );

  it('consecutive events handed over together are logged and taken in one statement, and sent in their order', async () => {
    const intakes = jest.spyOn(deliveries, 'intakeGroups');
    const { bus, dispatcher, processing, completed } = await twoEventsOfAnOrder({
      pollIntervalMs: 600_000,
      leaseMs: 3_000,
    });
    try {
      answer = () => ({ status: 200, delayMs: 0 });
      await Promise.all([bus.publish(processing), bus.publish(completed)]);
      await until(() => seenOf(processing, completed).length === 2);
      expect(seenOf(processing, completed).map(({ id }) => id)).toEqual([processing.id, completed.id]);
      expect(
        intakes.mock.calls.map(([, , groups]) => groups.map(({ events }) => events.map((event) => event.eventId))),
      ).toEqual([[[processing.id, completed.id]]]);
    } finally {
      await dispatcher.stop();
    }
  });

  it('events of two aggregates handed over in the same turn are logged in one statement, and each is sent', async () => {
    const intakes = jest.spyOn(deliveries, 'intakeGroups');
    const bus = createMemoryBus();
    const dispatcher = await start(bus, { pollIntervalMs: 600_000, leaseMs: 3_000 });
    const tpp = newId('tpp');
    const [one, two] = [newId('paymentOrder'), newId('paymentOrder')];
    const [ofOne, ofTwo] = [
      orderEvent(tpp, one, 1, 'payment_order.processing'),
      orderEvent(tpp, two, 1, 'payment_order.processing'),
    ];
    try {
      answer = () => ({ status: 200, delayMs: 0 });
      await Promise.all([bus.publish(ofOne), bus.publish(ofTwo)]);
      await until(() => seenOf(ofOne, ofTwo).length === 2);
      expect(
        intakes.mock.calls.map(([, , groups]) => groups.map(({ events }) => events.map((event) => event.eventId))),
      ).toEqual([[[ofOne.id], [ofTwo.id]]]);
    } finally {
      await dispatcher.stop();
    }
  });

  it('an earlier event to be retried holds back the one taken behind it, which goes after the retry', async () => {
    const { bus, dispatcher, processing, completed } = await twoEventsOfAnOrder({
      pollIntervalMs: 100,
      leaseMs: 1_000,
    });
    try {
      // The first attempt at the first event is refused after a while: the second was taken behind it meanwhile.
      answer = (id, nth) =>
        id === processing.id && nth === 1 ? { status: 500, delayMs: 200 } : { status: 200, delayMs: 0 };
      await Promise.all([bus.publish(processing), bus.publish(completed)]);
      await until(() => seenOf(processing, completed).length === 3);
      expect(seenOf(processing, completed)).toEqual([
        { id: processing.id, status: 500 },
        { id: processing.id, status: 200 },
        { id: completed.id, status: 200 },
      ]);
    } finally {
      await dispatcher.stop();
    }
  });

  it("an earlier attempt refused while the later event's intake is still under way holds it back all the same", async () => {
    const { bus, dispatcher, processing, completed } = await twoEventsOfAnOrder({
      pollIntervalMs: 100,
      leaseMs: 1_000,
    });
    // The window the worker's outcome cache covers: the intake statement took the later delivery
    // behind the earlier attempt (still leased when it ran), and answers only after that attempt
    // was refused and recorded and its lane closed. Without the cache the later event would go first.
    const intake = deliveries.intakeGroups.bind(deliveries);
    const firstSettled = async () => {
      await until(() => seenOf(processing).length >= 1);
      const deadline = Date.now() + 10_000;
      for (;;) {
        const row = await db.knex('payments.webhook_deliveries').where({ event_id: processing.id }).first();
        if (row?.attempts === 1 && row.lease_token === null) break;
        if (Date.now() > deadline) throw new Error('the first attempt was not recorded');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await new Promise((resolve) => setTimeout(resolve, 100)); // its lane ends right after the record
    };
    let intakes = 0;
    jest.spyOn(deliveries, 'intakeGroups').mockImplementation(async (...args) => {
      const answer = await intake(...args);
      if ((args[5] ?? []).length > 0) await firstSettled(); // held: taken behind the first attempt
      intakes += 1;
      return answer;
    });
    try {
      answer = (id, nth) =>
        id === processing.id && nth === 1 ? { status: 500, delayMs: 200 } : { status: 200, delayMs: 0 };
      // The later event comes once the earlier one's intake is over (its attempt running): an intake of its own.
      await bus.publish(processing);
      await until(() => intakes === 1);
      await bus.publish(completed);
      await until(() => seenOf(processing, completed).length === 3);
      expect(seenOf(processing, completed)).toEqual([
        { id: processing.id, status: 500 },
        { id: processing.id, status: 200 },
        { id: completed.id, status: 200 },
      ]);
    } finally {
      await dispatcher.stop();
    }
  });
});
