import { newId } from '@gateway/kernel';
import type { EventBus } from './bus';
import { topicMatches } from './bus';
import { createBus } from './create-bus';
import type { PlatformEvent } from './event';
import { createMemoryBus } from './memory-bus';
import { createRabbitBus } from './rabbit-bus';
import { eventually, startOutageProxy, testAmqpUrl, testNamespace, testRabbitOptions } from './testing';

const amqpUrl = testAmqpUrl();

const event = (kind: string, data: Record<string, unknown> = {}): PlatformEvent => ({
  id: newId('event'),
  kind,
  aggregateType: 'payment_session',
  aggregateId: newId('paymentSession'),
  audience: 'mer_test',
  createdAt: new Date().toISOString(),
  data,
});

/** Two handles on one bus: on RabbitMQ two connections (two processes' worth), in memory the same bus. */
type Pair = { a: EventBus; b: EventBus; close(): Promise<void> };

const adapters: Array<[string, () => Pair]> = [
  [
    'in-process',
    () => {
      const bus = createMemoryBus();
      return { a: bus, b: bus, close: () => bus.close() };
    },
  ],
];
if (amqpUrl) {
  adapters.push([
    'RabbitMQ',
    () => {
      const namespace = testNamespace();
      const a = createRabbitBus(amqpUrl, testRabbitOptions(namespace));
      const b = createRabbitBus(amqpUrl, testRabbitOptions(namespace));
      return { a, b, close: async () => void (await Promise.all([a.close(), b.close()])) };
    },
  ]);
}

describe.each(adapters)('event bus (%s)', (_name, makePair) => {
  let pair: Pair;
  beforeEach(() => {
    pair = makePair();
  });
  afterEach(async () => {
    await pair.close();
  });

  it('competing consumers: each event reaches exactly one consumer of a group, and every group', async () => {
    const seen: Record<string, string[]> = { w1: [], w2: [], audit: [] };
    await pair.a.consume('webhooks', 'payment.*', async (e) => void seen.w1!.push(e.id));
    await pair.b.consume('webhooks', 'payment.*', async (e) => void seen.w2!.push(e.id));
    await pair.a.consume('audit', '#', async (e) => void seen.audit!.push(e.id));
    const events = Array.from({ length: 20 }, (_, i) => event('payment.completed', { n: i }));
    for (const e of events) await pair.a.publish(e);
    const ids = events.map((e) => e.id).sort();
    await eventually(() => seen.w1!.length + seen.w2!.length === 20 && seen.audit!.length === 20, 'deliveries');
    expect([...seen.w1!, ...seen.w2!].sort()).toEqual(ids);
    expect([...seen.audit!].sort()).toEqual(ids);
  });

  it('one group on several patterns: each matching event once, others not at all', async () => {
    const seen: string[] = [];
    await pair.a.consume('multi', ['payment.*', 'consent.*'], async (e) => void seen.push(e.kind));
    await pair.a.publish(event('payment_order.completed')); // matches neither pattern
    await pair.a.publish(event('consent.granted'));
    await pair.a.publish(event('payment.completed'));
    await eventually(() => seen.length === 2, 'both matching events');
    expect(seen.sort()).toEqual(['consent.granted', 'payment.completed']);
  });

  it('fan-out: every subscriber sees every matching event, with its id, kind, time and data intact', async () => {
    const first: PlatformEvent[] = [];
    const second: PlatformEvent[] = [];
    await pair.a.subscribe('payment.#', async (e) => void first.push(e));
    await pair.b.subscribe('payment.#', async (e) => void second.push(e));
    const completed = event('payment.completed', { session_id: 'ops_1', amount: 12500 });
    await pair.a.publish(event('consent.granted')); // another topic: nobody here listens to it
    await pair.a.publish(completed);
    await eventually(() => first.length === 1 && second.length === 1, 'fan-out');
    expect(first[0]).toEqual(completed);
    expect(second[0]).toEqual(completed);
  });

  it('a handler that throws gets the same event again', async () => {
    const attempts: string[] = [];
    await pair.a.consume('flaky', 'payment.failed', async (e) => {
      attempts.push(e.id);
      if (attempts.length === 1) throw new Error('receiver not ready');
    });
    const failed = event('payment.failed');
    await pair.a.publish(failed);
    await eventually(() => attempts.length === 2, 'redelivery');
    expect(attempts).toEqual([failed.id, failed.id]);
  });

  it('a closed subscription receives nothing more', async () => {
    const seen: string[] = [];
    const subscription = await pair.a.subscribe('payment.*', async (e) => void seen.push(e.id));
    const before = event('payment.processing');
    await pair.a.publish(before);
    await eventually(() => seen.length === 1, 'first event');
    await subscription.close();
    const after = event('payment.completed');
    const witness: string[] = [];
    await pair.a.subscribe('payment.*', async (e) => void witness.push(e.id));
    await pair.a.publish(after);
    await eventually(() => witness.length === 1, 'witness');
    expect(seen).toEqual([before.id]);
  });
});

(amqpUrl ? describe : describe.skip)('RabbitMQ fan-out across a lost connection', () => {
  it('a subscriber is told when it is set up again (events published meanwhile never reached it), not at its first setup, and receives again', async () => {
    const proxy = await startOutageProxy(amqpUrl!);
    const namespace = testNamespace();
    const subscriber = createRabbitBus(proxy.url, testRabbitOptions(namespace));
    const publisher = createRabbitBus(amqpUrl!, testRabbitOptions(namespace));
    try {
      const seen: string[] = [];
      let resumed = 0;
      // A test namespace's exchange is auto-delete: a binding of the publisher's own keeps it while the subscriber's queue is gone.
      await publisher.subscribe('payment.*', async () => undefined);
      await subscriber.subscribe('payment.*', async (e) => void seen.push(e.id), { onResumed: () => (resumed += 1) });
      const before = event('payment.processing');
      await publisher.publish(before);
      await eventually(() => seen.length === 1, 'the event before the cut');
      expect(resumed).toBe(0);
      await proxy.cut();
      const during = event('payment.processing');
      await publisher.publish(during);
      await proxy.restore();
      await eventually(() => resumed === 1, 'the subscription set up again');
      const after = event('payment.completed');
      await publisher.publish(after);
      await eventually(() => seen.includes(after.id), 'the event after the cut');
      expect(seen).not.toContain(during.id); // why the subscriber must catch up
    } finally {
      await subscriber.close();
      await publisher.close();
      await proxy.close();
    }
  });
});

describe('createBus', () => {
  it('is the in-process bus without AMQP_URL', async () => {
    const bus = createBus({});
    const seen: string[] = [];
    await bus.subscribe('x.*', async (e) => void seen.push(e.id));
    const e = event('x.y');
    await bus.publish(e);
    await eventually(() => seen.length === 1);
    expect(seen).toEqual([e.id]);
    await bus.close();
  });

  it('is RabbitMQ with AMQP_URL: publish fails fast while the broker is unreachable', async () => {
    const bus = createBus({ amqpUrl: 'amqp://guest:guest@127.0.0.1:1', ...testRabbitOptions() });
    await expect(bus.publish(event('payment.completed'))).rejects.toThrow(/event bus unavailable/);
    await bus.close();
  });
});

describe('topicMatches', () => {
  it('matches as RabbitMQ does', () => {
    expect(topicMatches('payment.*', 'payment.completed')).toBe(true);
    expect(topicMatches('payment.*', 'payment.session.completed')).toBe(false);
    expect(topicMatches('payment.#', 'payment.session.completed')).toBe(true);
    expect(topicMatches('#', 'consent.granted')).toBe(true);
    expect(topicMatches('payment.*', 'consent.granted')).toBe(false);
  });
  it('answers the same for a pattern matched again and again (its expression built once, kept without state)', () => {
    for (let round = 0; round < 3; round += 1) {
      expect(topicMatches('payment.*', 'payment.completed')).toBe(true);
      expect(topicMatches('payment.*', 'payment.completed')).toBe(true);
      expect(topicMatches('payment.*', 'payment.session.completed')).toBe(false);
      expect(topicMatches('payment.#', 'payment.session.completed')).toBe(true);
    }
  });
});
