import { buildSchema, GraphQLError } from 'graphql';
import { topicMatches, type PlatformEvent } from '@gateway/events';
import { subscribedPatterns } from './subscription-fields';
import {
  applyEventStatus,
  planSubscription,
  refusalFor,
  TRACKED_STATUS_KEY,
  type SubscriptionPlan,
} from './subscription-plan';

const schema = buildSchema(`
  type Bank { handle: ID! displayName: String! }
  type PaymentSession { id: ID! status: String! amount: Int! creditorBank: Bank! }
  type Query { paymentSession(id: ID!): PaymentSession! }
  type Subscription { paymentSessionUpdated(id: ID!): PaymentSession! }
`);

const plan = (query: string, variables: Record<string, unknown> = {}, operationName?: string) =>
  planSubscription(schema, { query, variables, operationName });
const codes = (result: SubscriptionPlan | GraphQLError[]) =>
  Array.isArray(result) ? result.map((e) => e.extensions.code) : [];

describe('planSubscription', () => {
  it('turns the subscription into the query of the same selection, keeping the response key', () => {
    const result = plan(
      `subscription S($id: ID!) { live: paymentSessionUpdated(id: $id) { status ...F creditorBank { displayName } } } fragment F on PaymentSession { state: status amount }`,
      { id: 'ops_1' },
    ) as SubscriptionPlan;
    expect(result).toMatchObject({
      field: 'paymentSessionUpdated',
      aggregateType: 'payment_session',
      aggregateId: 'ops_1',
      responseKey: 'live',
      operationName: 'S',
    });
    expect(result.query).toContain('query S($id: ID!)');
    expect(result.query).toContain('live: paymentSession(id: $id)');
    expect(result.query).toContain('fragment F on PaymentSession');
    expect(result.statusKeys.sort()).toEqual(['state', 'status']);
  });

  it('reads a literal id too', () => {
    expect((plan(`subscription { paymentSessionUpdated(id: "ops_2") { id } }`) as SubscriptionPlan).aggregateId).toBe(
      'ops_2',
    );
  });

  it('refuses queries, unknown fields, several root fields and invalid documents', () => {
    expect(codes(plan(`query { paymentSession(id: "x") { id } }`))).toEqual(['VALIDATION_ERROR']);
    expect(
      codes(
        plan(`subscription { paymentSessionUpdated(id: "x") { id } other: paymentSessionUpdated(id: "y") { id } }`),
      ),
    ).toEqual(['VALIDATION_ERROR']);
    expect(codes(plan(`subscription { paymentSessionUpdated(id: "x") { nope } }`))).toEqual(['VALIDATION_ERROR']);
    expect(codes(plan(`subscription {`))).toEqual(['VALIDATION_ERROR']);
    expect(codes(plan(`subscription($id: ID!) { paymentSessionUpdated(id: $id) { id } }`, {}))).toEqual([
      'VALIDATION_ERROR',
    ]);
  });
});

describe('applyEventStatus', () => {
  it('reports the status the event moved the session to, under every key that selects it', () => {
    const p = plan(
      `subscription { s: paymentSessionUpdated(id: "ops_1") { status state: status amount } }`,
    ) as SubscriptionPlan;
    const result = applyEventStatus(
      { data: { s: { status: 'COMPLETED', state: 'COMPLETED', amount: 5 } } },
      p,
      'PROCESSING',
    );
    expect(result).toEqual({ data: { s: { status: 'PROCESSING', state: 'PROCESSING', amount: 5 } } });
    expect(applyEventStatus({ data: null, errors: [] } as never, p, 'PROCESSING')).toEqual({ data: null, errors: [] });
  });
});

/**
 * The Open Banking fields on the same code path. paymentOrder(id) lands with payment orders, so
 * its part of this schema is the shape the contract gives it, not the subgraph's.
 */
const obSchema = buildSchema(`
  type Bank { handle: ID! displayName: String! }
  enum ConsentStatus { AWAITING_AUTHORISATION AUTHORISED REJECTED REVOKED EXPIRED }
  type Consent { id: ID! status: ConsentStatus! bank: Bank! }
  type PaymentOrder { id: ID! status: String! amount: Int! consent: Consent! }
  type Query { consent(id: ID!): Consent! paymentOrder(id: ID!): PaymentOrder! }
  type Subscription { consentUpdated(id: ID!): Consent! paymentOrderUpdated(id: ID!): PaymentOrder! }
`);
const obPlan = (query: string, variables: Record<string, unknown> = {}) =>
  planSubscription(obSchema, { query, variables }) as SubscriptionPlan;
const event = (kind: string, aggregateType: string, data: Record<string, unknown> = {}): PlatformEvent => ({
  id: 'evt_1',
  kind,
  aggregateType,
  aggregateId: 'x',
  createdAt: new Date(0).toISOString(),
  data,
});

describe('consentUpdated and paymentOrderUpdated', () => {
  it('plan consentUpdated as consent(id) with the federated bank, following consent events', () => {
    const result = obPlan(`subscription($id: ID!) { consentUpdated(id: $id) { status bank { displayName } } }`, {
      id: 'con_1',
    });
    expect(result).toMatchObject({
      field: 'consentUpdated',
      aggregateType: 'consent',
      aggregateId: 'con_1',
      responseKey: 'consentUpdated',
      statusKeys: ['status'],
    });
    expect(result.query).toContain('consentUpdated: consent(id: $id)');
    expect(result.query).toContain('bank {');
    expect(result.query).toContain(`${TRACKED_STATUS_KEY}: status`);
    expect([...result.statusRank]).toEqual([
      ['AWAITING_AUTHORISATION', 0],
      ['AUTHORISED', 1],
      ['REJECTED', 2],
      ['REVOKED', 2],
      ['EXPIRED', 2],
    ]);
    expect(result.declaration.eventStatus(event('consent.revoked', 'consent', { status: 'REVOKED' }))).toBe('REVOKED');
    expect(result.declaration.eventStatus(event('internal.consent.rejected', 'consent', { status: 'REJECTED' }))).toBe(
      'REJECTED',
    );
  });

  it('plan paymentOrderUpdated as paymentOrder(id), its status from the event data or else its kind', () => {
    const result = obPlan(
      `subscription { order: paymentOrderUpdated(id: "po_1") { status amount consent { bank { displayName } } } }`,
    );
    expect(result).toMatchObject({
      field: 'paymentOrderUpdated',
      aggregateType: 'payment_order',
      aggregateId: 'po_1',
      responseKey: 'order',
    });
    expect(result.query).toContain('order: paymentOrder(id: "po_1")');
    expect(result.statusRank.get('PENDING_SCA')).toBe(0);
    expect(result.statusRank.get('PROCESSING')).toBe(1);
    expect(['COMPLETED', 'FAILED', 'REJECTED'].map((status) => result.statusRank.get(status))).toEqual([2, 2, 2]);
    const { eventStatus } = result.declaration;
    expect(eventStatus(event('payment_order.processing', 'payment_order', { status: 'PROCESSING' }))).toBe(
      'PROCESSING',
    );
    expect(eventStatus(event('payment_order.pending_sca', 'payment_order'))).toBe('PENDING_SCA');
    expect(eventStatus(event('payment_order.completed', 'payment_order'))).toBe('COMPLETED');
    expect(eventStatus(event('payment_order.something_else', 'payment_order'))).toBeUndefined();
  });

  it('refuse every credential but a TPP with the answer a stranger gets; sessions keep theirs', () => {
    const consent = obPlan(`subscription { consentUpdated(id: "con_9") { status } }`);
    expect(refusalFor(consent, { kind: 'tpp', id: 'tpp_1' })).toBeUndefined();
    for (const kind of ['merchant', 'ob_token', 'session', 'bank'] as const) {
      const refused = refusalFor(consent, { kind, id: 'x' })!;
      expect(refused.map((error) => [error.extensions.code, error.extensions.detail])).toEqual([
        ['CONSENT_NOT_FOUND', 'no consent con_9'],
      ]);
    }
    const order = obPlan(`subscription { paymentOrderUpdated(id: "po_9") { status } }`);
    expect(refusalFor(order, { kind: 'tpp', id: 'tpp_1' })).toBeUndefined();
    expect(refusalFor(order, { kind: 'merchant', id: 'm' })![0]!.extensions.code).toBe('PAYMENT_ORDER_NOT_FOUND');
    const session = plan(`subscription { paymentSessionUpdated(id: "ops_9") { status } }`) as SubscriptionPlan;
    expect(refusalFor(session, { kind: 'merchant', id: 'm' })).toBeUndefined();
    expect(refusalFor(session, { kind: 'session', id: 'ops_9' })).toBeUndefined();
    expect(refusalFor(session, { kind: 'tpp', id: 'tpp_1' })![0]!.extensions.code).toBe('SESSION_NOT_FOUND');
  });

  it('the hub follows each declared field on the bus, each pattern once', () => {
    expect(subscribedPatterns().sort()).toEqual([
      'consent.*',
      'internal.consent.*',
      'internal.mandate.*',
      'internal.net_debit_cap.*',
      'internal.settlement_cycle.*',
      'liquidity.*',
      'mandate.#',
      'movement.*',
      'payment.#',
      'payment_order.*',
      'refund.*',
    ]);
    // mandate.# takes the charges' events too (mandate.charge.completed): the mandate is their aggregate.
    expect(topicMatches('mandate.#', 'mandate.charge.completed')).toBe(true);
    // payment_order.* is not payment.# (a topic word is the whole word), so order events never reach session groups by pattern.
    expect(topicMatches('payment.#', 'payment_order.completed')).toBe(false);
  });
});
