import type { ExecutionResult } from 'graphql';
import { buildSchema } from 'graphql';
import { createMemoryBus, type EventBus, type PlatformEvent } from '@gateway/events';
import { createLogger, type Principal } from '@gateway/kernel';
import { SubscriptionHub } from './subscription-hub';
import { planSubscription, TRACKED_STATUS_KEY, type SubscriptionPlan, type TrackedResult } from './subscription-plan';

const schema = buildSchema(`
  type PaymentSession { id: ID! status: String! }
  type Query { paymentSession(id: ID!): PaymentSession! }
  type Subscription { paymentSessionUpdated(id: ID!): PaymentSession! }
`);
const plan = planSubscription(schema, {
  query: `subscription { paymentSessionUpdated(id: "ops_1") { status } }`,
}) as SubscriptionPlan;
const merchant: Principal = { kind: 'merchant', id: 'mer_1' };

let ids = 0;
const paymentEvent = (status: string, sequence?: number): PlatformEvent => ({
  id: `evt_${++ids}`,
  kind: `payment.${status.toLowerCase()}`,
  aggregateType: 'payment_session',
  aggregateId: 'ops_1',
  createdAt: new Date().toISOString(),
  ...(sequence !== undefined ? { sequence } : {}),
  data: { status },
});

const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

/** A hub on an in-process bus, and the statuses of the messages it answers one subscriber. */
async function followed() {
  const bus = createMemoryBus();
  const execute = async (): Promise<ExecutionResult> => ({
    data: { paymentSessionUpdated: { status: 'COMPLETED', [TRACKED_STATUS_KEY]: 'COMPLETED' } },
  });
  const hub = new SubscriptionHub(bus, execute, createLogger('router-test', 'silent'));
  await hub.start();
  const answered: Array<string | undefined> = [];
  hub.add(plan, merchant, { push: ({ status }: TrackedResult) => answered.push(status) });
  return { bus, hub, answered };
}

describe('SubscriptionHub: each aggregate followed in its event sequence', () => {
  it('an event the bus delivers after a later one of the same aggregate is not answered, nor a redelivery', async () => {
    const { bus, hub, answered } = await followed();
    const third = paymentEvent('SETTLEMENT_PENDING', 3);
    await bus.publish(paymentEvent('PROCESSING', 1));
    await bus.publish(third);
    await bus.publish(paymentEvent('PROCESSING', 2)); // overtaken on the bus: older than what was sent
    await bus.publish(third); // redelivered
    await bus.publish(paymentEvent('COMPLETED', 4));
    await settle();
    expect(answered).toEqual(['PROCESSING', 'SETTLEMENT_PENDING', 'COMPLETED']);
    await hub.stop();
  });

  it('events of one status that only the sequence tells apart (a mandate and its charges) each count once', async () => {
    const { bus, hub, answered } = await followed();
    const second = paymentEvent('PROCESSING', 2);
    await bus.publish(paymentEvent('PROCESSING', 1));
    await bus.publish(second);
    await bus.publish({ ...second, id: 'evt_copy' }); // the same place in the sequence, however it is named
    await settle();
    expect(answered).toEqual(['PROCESSING', 'PROCESSING']);
    await hub.stop();
  });

  it('after its bus subscription was down, every followed aggregate is read again: a newer state is sent, a failed read is not', async () => {
    const memory = createMemoryBus();
    const resumed: Array<() => void> = [];
    // The in-process bus never loses a connection: this one says when RabbitMQ's would have come back.
    const bus: EventBus = {
      ...memory,
      subscribe: async (pattern, handler, options) => (
        options?.onResumed && resumed.push(options.onResumed),
        memory.subscribe(pattern, handler)
      ),
    };
    let state: ExecutionResult = {
      data: { paymentSessionUpdated: { status: 'COMPLETED', [TRACKED_STATUS_KEY]: 'COMPLETED' } },
    };
    const hub = new SubscriptionHub(bus, async () => state, createLogger('router-test', 'silent'));
    await hub.start();
    const answered: Array<string | undefined> = [];
    hub.add(plan, merchant, { push: ({ status }: TrackedResult) => answered.push(status) });
    expect(resumed.length).toBeGreaterThan(0);
    resumed[0]!(); // the session completed while the events could not reach this instance
    await settle();
    expect(answered).toEqual(['COMPLETED']);
    state = { data: null, errors: [{ message: 'subgraph unreachable' }] } as unknown as ExecutionResult;
    resumed[0]!();
    await settle();
    expect(answered).toEqual(['COMPLETED']);
    await hub.stop();
  });

  it('an event without a sequence (relayed before sequences existed) is answered once however often it comes', async () => {
    const { bus, hub, answered } = await followed();
    const processing = paymentEvent('PROCESSING');
    await bus.publish(processing);
    await bus.publish(processing);
    await bus.publish(paymentEvent('COMPLETED'));
    await settle();
    expect(answered).toEqual(['PROCESSING', 'COMPLETED']);
    await hub.stop();
  });
});
