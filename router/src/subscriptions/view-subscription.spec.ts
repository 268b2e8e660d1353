import type { ExecutionResult } from 'graphql';
import { buildSchema } from 'graphql';
import { createMemoryBus, type PlatformEvent } from '@gateway/events';
import { createLogger, type Principal } from '@gateway/kernel';
import { ResultStream } from './result-stream';
import { SubscriptionHub } from './subscription-hub';
import { planSubscription, refusalFor, TRACKED_STATUS_KEY, type SubscriptionPlan } from './subscription-plan';

/** The operator's live positions (issue 50): a view, read again on the events that can move it. */
const schema = buildSchema(`
  type BankPosition { currency: String! position: Int! netDebitCap: Int }
  type PaymentSession { id: ID! status: String! }
  type Query { bankPositions(handle: String!): [BankPosition!]! paymentSession(id: ID!): PaymentSession! }
  type Subscription { bankPositionsUpdated(handle: String!): [BankPosition!]! paymentSessionUpdated(id: ID!): PaymentSession! }
`);
const plan = planSubscription(schema, {
  query: 'subscription Live($handle: String!) { bankPositionsUpdated(handle: $handle) { currency position } }',
  variables: { handle: 'alpha' },
}) as SubscriptionPlan;
const admin: Principal = { kind: 'admin', id: 'adk_1', name: 'ops' };

let ids = 0;
const event = (kind: string, aggregateId = 'ops_9'): PlatformEvent => ({
  id: `evt_${++ids}`,
  kind,
  aggregateType: kind.startsWith('internal.net_debit_cap') ? 'bank_position' : 'payment_session',
  aggregateId,
  createdAt: new Date().toISOString(),
  data: {},
});
const settle = () => new Promise((resolve) => setTimeout(resolve, 30));

describe('bankPositionsUpdated: a view, not a lifecycle', () => {
  it('is planned as bankPositions(handle) without a tracked status, for admins only (FORBIDDEN otherwise)', () => {
    expect(plan.field).toBe('bankPositionsUpdated');
    expect(plan.aggregateId).toBe('alpha');
    expect(plan.query).toContain('bankPositionsUpdated: bankPositions(handle: $handle)');
    expect(plan.query).not.toContain(TRACKED_STATUS_KEY);
    expect(refusalFor(plan, admin)).toBeUndefined();
    for (const kind of ['merchant', 'bank', 'tpp'] as const) {
      const refused = refusalFor(plan, { kind, id: 'x' });
      expect(refused?.[0]?.extensions.code).toBe('FORBIDDEN');
    }
  });

  it('any event that can move a position reads it again; an unchanged answer is not sent; unrelated events cost nothing', async () => {
    const bus = createMemoryBus();
    let position = 100;
    let reads = 0;
    const execute = async (): Promise<ExecutionResult> => {
      reads += 1;
      return { data: { bankPositionsUpdated: [{ currency: 'LYD', position }] } };
    };
    const hub = new SubscriptionHub(bus, execute, createLogger('router-test', 'silent'));
    await hub.start();
    const sent: unknown[] = [];
    hub.add(plan, admin, { push: ({ result }) => sent.push(result.data?.bankPositionsUpdated) });

    position = 250; // a payment of another aggregate moved the bank's position
    await bus.publish(event('payment.completed'));
    await settle();
    expect(sent).toEqual([[{ currency: 'LYD', position: 250 }]]);

    await bus.publish(event('consent.granted')); // not a pattern of the field: no read
    await bus.publish(event('payment.processing')); // read, but nothing changed: not sent
    await settle();
    expect(sent).toHaveLength(1);
    expect(reads).toBe(2);

    position = 300; // the operator changed the cap (internal event, aggregate of its own)
    await bus.publish(event('internal.net_debit_cap.changed', 'cap:alpha:LYD'));
    await settle();
    expect(sent).toEqual([[{ currency: 'LYD', position: 250 }], [{ currency: 'LYD', position: 300 }]]);
    await hub.stop();
  });

  it('a burst of events while a read waits shares that read', async () => {
    const bus = createMemoryBus();
    let reads = 0;
    let release: () => void = () => undefined;
    const execute = async (): Promise<ExecutionResult> => {
      reads += 1;
      if (reads === 1) await new Promise<void>((resolve) => (release = resolve));
      return { data: { bankPositionsUpdated: [{ currency: 'LYD', position: reads }] } };
    };
    const hub = new SubscriptionHub(bus, execute, createLogger('router-test', 'silent'));
    await hub.start();
    hub.add(plan, admin, { push: () => undefined });
    await bus.publish(event('payment.completed')); // read 1 starts and waits
    await settle();
    for (let i = 0; i < 10; i += 1) await bus.publish(event('refund.completed')); // one read queued for all ten
    await settle();
    release();
    await settle();
    expect(reads).toBe(2);
    await hub.stop();
  });

  it('settlementCyclesUpdated follows no one object: planned as settlementCycles with its arguments, admin only', () => {
    const cycles = buildSchema(`
      type Cycles { total: Int! }
      type Query { settlementCycles(first: Int = 20): Cycles! }
      type Subscription { settlementCyclesUpdated(first: Int = 20): Cycles! }
    `);
    const planned = planSubscription(cycles, {
      query: 'subscription { settlementCyclesUpdated(first: 5) { total } }',
    }) as SubscriptionPlan;
    expect(planned.aggregateId).toBe('settlementCyclesUpdated');
    expect(planned.query).toContain('settlementCyclesUpdated: settlementCycles(first: 5)');
    expect(planned.declaration.eventPatterns).toEqual(['internal.settlement_cycle.*']);
    expect(refusalFor(planned, { kind: 'bank', id: 'alpha' })?.[0]?.extensions.code).toBe('FORBIDDEN');
  });

  it("the subscriber's stream never completes on its own (no final status)", async () => {
    const stream = new ResultStream(plan.statusRank);
    stream.pushFirst({ result: { data: { bankPositionsUpdated: [] } }, status: undefined });
    stream.push({ result: { data: { bankPositionsUpdated: [{ currency: 'LYD', position: 1 }] } }, status: undefined });
    expect(await stream.next()).toEqual({ value: { data: { bankPositionsUpdated: [] } }, done: false });
    expect((await stream.next()).done).toBe(false);
    const third = stream.next();
    stream.push({ result: { data: { bankPositionsUpdated: [{ currency: 'LYD', position: 2 }] } }, status: undefined });
    expect((await third).done).toBe(false);
    await stream.return();
  });
});
