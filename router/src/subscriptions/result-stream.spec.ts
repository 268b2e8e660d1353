import { buildSchema } from 'graphql';
import { ResultStream } from './result-stream';
import { planSubscription, trackResult, TRACKED_STATUS_KEY, type SubscriptionPlan } from './subscription-plan';

const schema = buildSchema(`
  type PaymentSession { id: ID! status: String! amount: Int! }
  type Query { paymentSession(id: ID!): PaymentSession! }
  type Subscription { paymentSessionUpdated(id: ID!): PaymentSession! }
`);
const plan = planSubscription(schema, {
  query: `subscription { paymentSessionUpdated(id: "ops_1") { amount } }`,
}) as SubscriptionPlan;

/** What the gateway answers the plan's query when the session is in `status`. */
const answer = (status: string) => ({ data: { paymentSessionUpdated: { amount: 5, [TRACKED_STATUS_KEY]: status } } });
const at = (status: string) => trackResult(answer(status), plan);
const event = (status: string) => trackResult(answer('COMPLETED'), plan, status);

async function drain(stream: ResultStream): Promise<unknown[]> {
  const seen: unknown[] = [];
  for await (const result of stream) seen.push(result.data);
  return seen;
}

describe('ResultStream: each status once, in order', () => {
  it('the creation event that crosses the state sent at subscribe time is not sent again', async () => {
    const stream = new ResultStream(plan.statusRank);
    stream.pushFirst(at('PENDING'));
    stream.push(event('PENDING'));
    stream.push(event('PROCESSING'));
    stream.push(event('COMPLETED'));
    expect(await drain(stream)).toHaveLength(3);
  });

  it('events queued while the first query ran: those not later than its state go, later ones follow it', async () => {
    const withStatus = planSubscription(schema, {
      query: `subscription { paymentSessionUpdated(id: "ops_1") { status } }`,
    }) as SubscriptionPlan;
    // An event's message reports the event's status whatever the query read meanwhile.
    const read = (status: string, fromEvent?: string) =>
      trackResult({ data: { paymentSessionUpdated: { status, [TRACKED_STATUS_KEY]: status } } }, withStatus, fromEvent);
    const stream = new ResultStream(withStatus.statusRank);
    stream.push(read('COMPLETED', 'PENDING'));
    stream.push(read('COMPLETED', 'PROCESSING'));
    stream.push(read('COMPLETED', 'SETTLEMENT_PENDING'));
    stream.pushFirst(read('PROCESSING'));
    stream.push(read('COMPLETED', 'COMPLETED'));
    const statuses = (await drain(stream)).map(
      (data) => (data as { paymentSessionUpdated: { status: string } }).paymentSessionUpdated.status,
    );
    expect(statuses).toEqual(['PROCESSING', 'SETTLEMENT_PENDING', 'COMPLETED']);
  });

  it('an older status arriving late (a reordering bus, a redelivery) is dropped', async () => {
    const stream = new ResultStream(plan.statusRank);
    stream.pushFirst(at('PENDING'));
    stream.push(event('SETTLEMENT_PENDING'));
    stream.push(event('PROCESSING'));
    stream.push(event('SETTLEMENT_PENDING'));
    stream.push(event('FAILED'));
    expect(await drain(stream)).toHaveLength(3);
  });

  it('a final state at subscribe time ends the stream after one message', async () => {
    const stream = new ResultStream(plan.statusRank);
    stream.push(event('COMPLETED'));
    stream.pushFirst(at('COMPLETED'));
    expect(await drain(stream)).toHaveLength(1);
  });

  it("the router's status field never reaches the subscriber", () => {
    expect(plan.query).toContain(`${TRACKED_STATUS_KEY}: status`);
    expect(at('PENDING')).toEqual({ result: { data: { paymentSessionUpdated: { amount: 5 } } }, status: 'PENDING' });
  });
});
