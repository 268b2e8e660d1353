import {
  ClientRequests,
  evidenceTable,
  isRetryable,
  percentile,
  SubscriptionOrder,
  WebhookOrder,
} from '../../scripts/chaos/evidence';

/** The chaos run's evidence checks (scripts/chaos/evidence.ts): each must catch what it names. */
describe('chaos evidence', () => {
  it('percentile: nearest rank, undefined without values', () => {
    const values = Array.from({ length: 100 }, (_, i) => 100 - i);
    expect(percentile(values, 50)).toBe(50);
    expect(percentile(values, 99)).toBe(99);
    expect(percentile([3_200], 99)).toBe(3_200);
    expect(percentile([], 50)).toBeUndefined();
  });

  describe('webhook order per aggregate', () => {
    const envelope = (id: string, sequence: number, data: Record<string, unknown>, event = 'payment.processing') => ({
      id,
      event,
      sequence,
      data,
    });

    it('counts a new event below what its aggregate already received as out of order, per aggregate', () => {
      const order = new WebhookOrder();
      order.record(envelope('evt_1', 1, { session_id: 'ops_a' }, 'payment.initiated'));
      order.record(envelope('evt_b1', 1, { session_id: 'ops_b' }, 'payment.initiated'));
      order.record(envelope('evt_3', 3, { session_id: 'ops_a' }, 'payment.completed'));
      order.record(envelope('evt_2', 2, { session_id: 'ops_a' }));
      expect(order.outOfOrder).toBe(1);
      expect(order.examples[0]).toContain('#2 after #3');
      expect(order.aggregates).toBe(2);
    });

    it('a redelivery of an event id already received is at least once, not out of order', () => {
      const order = new WebhookOrder();
      order.record(envelope('evt_1', 1, { session_id: 'ops_a' }));
      order.record(envelope('evt_2', 2, { session_id: 'ops_a' }));
      order.record(envelope('evt_1', 1, { session_id: 'ops_a' }));
      expect(order).toMatchObject({ deliveries: 3, redeliveries: 1, outOfOrder: 0 });
    });

    it("a mandate's charges are ordered with the mandate; a payment order's events by the order, not its consent", () => {
      const order = new WebhookOrder();
      order.record(envelope('evt_m2', 2, { mandate_id: 'mdt_1' }, 'mandate.activated'));
      order.record(envelope('evt_c1', 1, { charge_id: 'chg_1', mandate_id: 'mdt_1' }, 'mandate.charge.completed'));
      order.record(
        envelope('evt_o1', 1, { payment_order_id: 'po_1', consent_id: 'con_1' }, 'payment_order.processing'),
      );
      order.record(envelope('evt_k1', 1, { consent_id: 'con_1' }, 'consent.granted'));
      expect(order.outOfOrder).toBe(1);
      expect(order.aggregates).toBe(3);
    });

    it("a refund's events are ordered by the refund, not its session, and counted by that kind", () => {
      const order = new WebhookOrder();
      order.record(envelope('evt_s3', 3, { session_id: 'ops_a' }, 'payment.completed'));
      // Each refund's own sequence starts again: below the session's, and not out of order.
      order.record(envelope('evt_r1', 1, { refund_id: 'rfd_1', session_id: 'ops_a' }, 'refund.completed'));
      order.record(envelope('evt_r2', 1, { refund_id: 'rfd_2', session_id: 'ops_a' }, 'refund.failed'));
      expect(order).toMatchObject({ outOfOrder: 0, aggregates: 3 });
      expect(order.of('refund_id')).toEqual({ aggregates: 2, outOfOrder: 0 });
      order.record(envelope('evt_r3', 3, { refund_id: 'rfd_3', session_id: 'ops_a' }, 'refund.failed'));
      order.record(envelope('evt_r4', 2, { refund_id: 'rfd_3', session_id: 'ops_a' }, 'refund.completed'));
      expect(order.of('refund_id')).toEqual({ aggregates: 3, outOfOrder: 1 });
      expect(order.of('session_id')).toEqual({ aggregates: 1, outOfOrder: 0 });
    });

    it('an envelope without a sequence is counted apart', () => {
      const order = new WebhookOrder();
      order.record({ id: 'evt_1', event: 'payment.initiated', data: { session_id: 'ops_a' } });
      expect(order.withoutSequence).toBe(1);
    });
  });

  describe('subscription statuses', () => {
    const seen = (...connections: string[][]) => {
      const order = new SubscriptionOrder();
      for (const statuses of connections) {
        order.connected();
        for (const status of statuses) order.status(status);
      }
      return order;
    };

    it('forwards, once each, is clean', () => {
      expect(seen(['PENDING', 'PROCESSING', 'SETTLEMENT_PENDING', 'COMPLETED'])).toMatchObject({
        repeated: 0,
        backwards: 0,
        final: true,
      });
    });

    it('a status repeated within one connection is a violation (the snapshot and an event crossing)', () => {
      expect(seen(['PENDING', 'PENDING', 'PROCESSING'])).toMatchObject({ repeated: 1, backwards: 0 });
    });

    it('the first status of a new connection may equal the last one received (the snapshot), not the second', () => {
      expect(seen(['PENDING', 'PROCESSING'], ['PROCESSING', 'COMPLETED'])).toMatchObject({
        repeated: 0,
        backwards: 0,
        connections: 2,
      });
      expect(seen(['PENDING'], ['PENDING', 'PENDING'])).toMatchObject({ repeated: 1 });
    });

    it('going back, within a connection or across one, and one final status after another are violations', () => {
      expect(seen(['PENDING', 'PROCESSING', 'PENDING'])).toMatchObject({ backwards: 1 });
      expect(seen(['PROCESSING'], ['PENDING'])).toMatchObject({ backwards: 1 });
      expect(seen(['PROCESSING', 'FAILED', 'COMPLETED'])).toMatchObject({ backwards: 1 });
    });
  });

  describe('client requests', () => {
    it('retries no answer, 5xx, 429 and a key still in use; not a refusal', () => {
      expect(isRetryable({ status: 0 })).toBe(true);
      expect(isRetryable({ status: 503, body: { error: { code: 'CBS_TIMEOUT' } } })).toBe(true);
      expect(isRetryable({ status: 429 })).toBe(true);
      expect(isRetryable({ status: 409, body: { error: { code: 'IDEMPOTENCY_KEY_IN_USE' } } })).toBe(true);
      expect(isRetryable({ status: 409, body: { error: { code: 'SESSION_ALREADY_COMPLETED' } } })).toBe(false);
      expect(isRetryable({ status: 201 })).toBe(false);
    });

    it('counts requests failing after one retry, by cause, and those failing for good', () => {
      const requests = new ClientRequests();
      requests.record('create', [], false);
      requests.record('create', [{ status: 0 }], false);
      requests.record(
        'authorize',
        [
          { status: 503, body: { error: { code: 'CBS_TIMEOUT' } } },
          { status: 502, body: { error: { code: 'CBS_ERROR' } } },
        ],
        false,
      );
      requests.record(
        'create',
        [{ status: 503, body: { error: { code: 'CBS_TIMEOUT' } } }, { status: 0 }, { status: 0 }],
        true,
      );
      expect(requests).toMatchObject({
        requests: 4,
        retriedOnce: 1,
        failedAfterOneRetry: { bank: 1, platform: 1 },
        failedForGood: { bank: 0, platform: 1 },
      });
      expect(requests.causes['create 0']).toBe(2);
    });
  });

  it('the closing table gives invariants PASS/FAIL, targets met/NOT met, figures no verdict', () => {
    const lines = evidenceTable([
      { figure: 'payments driven', value: '300', target: '', kind: 'figure', ok: true },
      { figure: 'double debits', value: '1', target: '0', kind: 'invariant', ok: false },
      { figure: 'takeover p99', value: '6.0 s', target: 'p99 <= 5 s', kind: 'target', ok: false },
    ]);
    expect(lines).toHaveLength(5);
    expect(lines[2]).toMatch(/^\| payments driven +\| 300 +\| +\| +\|$/);
    expect(lines[3]).toMatch(/\| FAIL +\|$/);
    expect(lines[4]).toMatch(/\| NOT met \|$/);
  });
});
