import {
  oneFinalRefundEvent,
  refundMoneyAtCores,
  refundsOnce,
  refundsWithinAmount,
  type LedgerLine,
  type RefundRow,
} from '../../scripts/chaos/refund-checks';

/** The chaos run's refund checks (scripts/chaos/refund-checks.ts): each must catch what it names. */
describe('chaos refund invariants', () => {
  const MERCHANT = 'LY00 0901 SHOP';
  const PAYER = 'LY000902PAYER';
  const refund = (id: string, status: string, amount: number, extra: Partial<RefundRow> = {}): RefundRow => ({
    id,
    session_id: 'ops_1',
    status,
    amount,
    failure_code: null,
    debtor_bank: 'a',
    debtor_iban: MERCHANT,
    creditor_bank: 'b',
    creditor_iban: PAYER,
    ...extra,
  });
  const debit = (reference: string, amount: number, iban = 'LY000901SHOP'): LedgerLine => ({
    bank_handle: 'a',
    operation: 'DEBIT',
    reference,
    iban,
    amount: String(amount),
  });
  const reversal = (id: string, amount: number): LedgerLine => ({
    bank_handle: 'a',
    operation: 'CREDIT',
    reference: `${id}:reversal`,
    iban: 'LY000901SHOP',
    amount,
  });
  const credit = (reference: string, amount: number, bank = 'b'): LedgerLine => ({
    bank_handle: bank,
    operation: 'CREDIT',
    reference,
    iban: PAYER,
    amount,
  });

  describe('money at the cores', () => {
    it('a COMPLETED refund took its amount from the merchant to the payer; a FAILED one moved nothing net', () => {
      const money = refundMoneyAtCores(
        [refund('rfd_1', 'COMPLETED', 500), refund('rfd_2', 'FAILED', 300), refund('rfd_3', 'FAILED', 200)],
        [debit('rfd_1', 500), credit('rfd_1', 500), debit('rfd_2', 300), reversal('rfd_2', 300)],
        new Set(),
      );
      expect(money).toEqual({ checked: 3, wrong: [], leftToOperator: 0, bookedTwice: [], stray: [] });
    });

    it('catches a completed refund not credited, a failed one not given back or credited, and a booking elsewhere', () => {
      const money = refundMoneyAtCores(
        [
          refund('rfd_1', 'COMPLETED', 500),
          refund('rfd_2', 'FAILED', 300),
          refund('rfd_3', 'FAILED', 200),
          refund('rfd_4', 'COMPLETED', 100),
        ],
        [
          debit('rfd_1', 500),
          debit('rfd_2', 300),
          credit('rfd_3', 200),
          debit('rfd_4', 100),
          credit('rfd_4', 100, 'c'),
        ],
        new Set(),
      );
      expect(money.wrong).toEqual([
        'rfd_1 COMPLETED 500: debit 500, reversal 0, payer credited 0',
        'rfd_2 FAILED: debit 300, reversal 0, payer credited 0',
        'rfd_3 FAILED: debit 0, reversal 0, payer credited 200',
        `rfd_4: CREDIT rfd_4 at c ${PAYER}`,
        'rfd_4 COMPLETED 100: debit 100, reversal 0, payer credited 0',
      ]);
    });

    it('a refund left to an operator is not compared; a booking for no refund and a reference booked twice are caught', () => {
      const money = refundMoneyAtCores(
        [refund('rfd_1', 'FAILED', 500, { failure_code: 'CBS_OUTCOME_UNKNOWN' })],
        [debit('rfd_1', 500), debit('rfd_9', 10), credit('rfd_8', 10), credit('rfd_8', 10)],
        new Set(['rfd_1']),
      );
      expect(money).toMatchObject({ checked: 0, wrong: [], leftToOperator: 1 });
      expect(money.stray).toEqual(['rfd_9 (1 bookings)', 'rfd_8 (2 bookings)']);
      expect(money.bookedTwice).toEqual(['b CREDIT rfd_8 x2']);
    });
  });

  describe('within the session amount', () => {
    it("amount_refunded is what the refunds take: not FAILED, or FAILED while an operator checks the payer's credit", () => {
      const refunds = [
        refund('rfd_1', 'COMPLETED', 400),
        refund('rfd_2', 'FAILED', 600),
        refund('rfd_3', 'FAILED', 100, { failure_code: 'CBS_OUTCOME_UNKNOWN' }),
        refund('rfd_4', 'SETTLEMENT_PENDING', 500),
      ];
      expect(refundsWithinAmount([{ id: 'ops_1', amount: '1000', amount_refunded: '1000' }], refunds)).toEqual({
        sessions: 1,
        over: [],
        mismatched: [],
      });
      const wrong = refundsWithinAmount([{ id: 'ops_1', amount: 1000, amount_refunded: 900 }], refunds);
      expect(wrong.mismatched).toEqual(['ops_1: amount_refunded 900, refunds taking 1000']);
    });

    it('refunds not FAILED over the amount are caught', () => {
      const found = refundsWithinAmount(
        [{ id: 'ops_1', amount: 1000, amount_refunded: 1000 }],
        [refund('rfd_1', 'COMPLETED', 1000), refund('rfd_2', 'PROCESSING', 1)],
      );
      expect(found.over).toEqual(['ops_1: amount 1000, refunds not FAILED 1001, amount_refunded 1000']);
    });
  });

  describe('nothing twice', () => {
    const answers = (ids: string[], unanswered: Record<string, number> = {}) => ({
      refundIds: new Map(ids.map((id) => [id, 'ops_1'])),
      unanswered: new Map(Object.entries(unanswered)),
      keysAnsweredTwice: [],
    });
    const once = (ids: string[]) => new Map(ids.map((id) => [id, 1]));

    it('every stored refund answered, with one execution each, is clean', () => {
      const refunds = [refund('rfd_1', 'COMPLETED', 5), refund('rfd_2', 'FAILED', 5)];
      expect(refundsOnce(refunds, answers(['rfd_1', 'rfd_2']), once(['rfd_1', 'rfd_2']))).toEqual({
        unknown: [],
        lost: [],
        executionsNotOne: [],
      });
    });

    it('a refund the client never heard of is a request executed twice, unless its session had a request left unanswered', () => {
      const refunds = [refund('rfd_1', 'COMPLETED', 5), refund('rfd_2', 'COMPLETED', 5)];
      const executions = once(['rfd_1', 'rfd_2']);
      expect(refundsOnce(refunds, answers(['rfd_1']), executions).unknown).toEqual(['ops_1: rfd_2']);
      expect(refundsOnce(refunds, answers(['rfd_1'], { ops_1: 1 }), executions).unknown).toEqual([]);
      expect(refundsOnce(refunds, answers([], { ops_1: 1 }), executions).unknown).toEqual(['ops_1: rfd_1, rfd_2']);
    });

    it('a refund with no execution or two, and an answered refund not stored, are caught', () => {
      const found = refundsOnce(
        [refund('rfd_1', 'COMPLETED', 5), refund('rfd_2', 'COMPLETED', 5)],
        answers(['rfd_1', 'rfd_2', 'rfd_3']),
        new Map([['rfd_1', 2]]),
      );
      expect(found).toEqual({ unknown: [], lost: ['rfd_3'], executionsNotOne: ['rfd_1 x2', 'rfd_2 x0'] });
    });
  });

  describe('one final event per refund', () => {
    const delivery = (id: string, event: string, refundId: string) => ({ id, event, refundId });

    it('one event id per final refund, redeliveries sharing it, is clean', () => {
      const found = oneFinalRefundEvent(
        [refund('rfd_1', 'COMPLETED', 5), refund('rfd_2', 'FAILED', 5)],
        [
          delivery('evt_1', 'refund.completed', 'rfd_1'),
          delivery('evt_1', 'refund.completed', 'rfd_1'),
          delivery('evt_2', 'refund.failed', 'rfd_2'),
          delivery('evt_3', 'payment.completed', 'rfd_2'),
        ],
      );
      expect(found).toEqual({ final: 2, missing: [], several: [], wrongKind: [], stray: [] });
    });

    it('catches a missing event, two event ids, the wrong kind, and an event for a refund not final', () => {
      const found = oneFinalRefundEvent(
        [
          refund('rfd_1', 'COMPLETED', 5),
          refund('rfd_2', 'FAILED', 5),
          refund('rfd_3', 'COMPLETED', 5),
          refund('rfd_4', 'PROCESSING', 5),
        ],
        [
          delivery('evt_2', 'refund.failed', 'rfd_2'),
          delivery('evt_2b', 'refund.failed', 'rfd_2'),
          delivery('evt_3', 'refund.failed', 'rfd_3'),
          delivery('evt_4', 'refund.completed', 'rfd_4'),
        ],
      );
      expect(found).toEqual({
        final: 3,
        missing: ['rfd_1'],
        several: ['rfd_2 x2'],
        wrongKind: ['rfd_3 COMPLETED: refund.failed'],
        stray: ['rfd_4'],
      });
    });
  });
});
