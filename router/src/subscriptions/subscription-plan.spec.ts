import { buildSchema, GraphQLError } from 'graphql';
import { applyEventStatus, planSubscription, type SubscriptionPlan } from './subscription-plan';

const schema = buildSchema(`
  type Bank { handle: ID! displayName: String! }
  type PaymentSession { id: ID! status: String! amount: Int! creditorBank: Bank! }
  type Query { paymentSession(id: ID!): PaymentSession! }
  type Subscription { paymentSessionUpdated(id: ID!): PaymentSession! }
`);

const plan = (query: string, variables: Record<string, unknown> = {}, operationName?: string) => planSubscription(schema, { query, variables, operationName });
const codes = (result: SubscriptionPlan | GraphQLError[]) => (Array.isArray(result) ? result.map((e) => e.extensions.code) : []);

describe('planSubscription', () => {
  it('turns the subscription into the query of the same selection, keeping the response key', () => {
    const result = plan(
      `subscription S($id: ID!) { live: paymentSessionUpdated(id: $id) { status ...F creditorBank { displayName } } } fragment F on PaymentSession { state: status amount }`,
      { id: 'ops_1' },
    ) as SubscriptionPlan;
    expect(result).toMatchObject({ field: 'paymentSessionUpdated', aggregateType: 'payment_session', aggregateId: 'ops_1', responseKey: 'live', operationName: 'S' });
    expect(result.query).toContain('query S($id: ID!)');
    expect(result.query).toContain('live: paymentSession(id: $id)');
    expect(result.query).toContain('fragment F on PaymentSession');
    expect(result.statusKeys.sort()).toEqual(['state', 'status']);
  });

  it('reads a literal id too', () => {
    expect((plan(`subscription { paymentSessionUpdated(id: "ops_2") { id } }`) as SubscriptionPlan).aggregateId).toBe('ops_2');
  });

  it('refuses queries, unknown fields, several root fields and invalid documents', () => {
    expect(codes(plan(`query { paymentSession(id: "x") { id } }`))).toEqual(['VALIDATION_ERROR']);
    expect(codes(plan(`subscription { paymentSessionUpdated(id: "x") { id } other: paymentSessionUpdated(id: "y") { id } }`))).toEqual(['VALIDATION_ERROR']);
    expect(codes(plan(`subscription { paymentSessionUpdated(id: "x") { nope } }`))).toEqual(['VALIDATION_ERROR']);
    expect(codes(plan(`subscription {`))).toEqual(['VALIDATION_ERROR']);
    expect(codes(plan(`subscription($id: ID!) { paymentSessionUpdated(id: $id) { id } }`, {}))).toEqual(['VALIDATION_ERROR']);
  });
});

describe('applyEventStatus', () => {
  it('reports the status the event moved the session to, under every key that selects it', () => {
    const p = plan(`subscription { s: paymentSessionUpdated(id: "ops_1") { status state: status amount } }`) as SubscriptionPlan;
    const result = applyEventStatus({ data: { s: { status: 'COMPLETED', state: 'COMPLETED', amount: 5 } } }, p, 'PROCESSING');
    expect(result).toEqual({ data: { s: { status: 'PROCESSING', state: 'PROCESSING', amount: 5 } } });
    expect(applyEventStatus({ data: null, errors: [] } as never, p, 'PROCESSING')).toEqual({ data: null, errors: [] });
  });
});
