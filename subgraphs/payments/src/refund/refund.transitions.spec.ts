import { GatewayError, parseInput } from '@gateway/kernel';
import { refundAmountOf, refundSessionRules } from './refund.rules';
import {
  failureFreesAmount,
  FINAL_REFUND_STATUSES,
  publicRefundStatus,
  REFUND_STATUSES,
  REFUND_TRANSITIONS,
  refundTransitionFor,
  type RefundStatus,
  type RefundTrigger,
} from './refund.transitions';

const TRIGGERS: RefundTrigger[] = [
  'created',
  'internal_credit_booked',
  'cross_bank_debit_booked',
  'credit_confirmed',
  'credit_evidenced',
  'core_failure',
  'found_credited',
  'found_not_credited',
];

describe('refund transition table', () => {
  // API-CONTRACT "Refunds": PROCESSING, then COMPLETED (the payer credited) or FAILED; the rail's wait between.
  it.each([
    [null, 'created', 'PROCESSING', null],
    ['PROCESSING', 'internal_credit_booked', 'COMPLETED', 'refund.completed'],
    ['PROCESSING', 'cross_bank_debit_booked', 'SETTLEMENT_PENDING', null],
    ['PROCESSING', 'core_failure', 'FAILED', 'refund.failed'],
    ['SETTLEMENT_PENDING', 'credit_confirmed', 'COMPLETED', 'refund.completed'],
    ['SETTLEMENT_PENDING', 'credit_evidenced', 'COMPLETED', 'refund.completed'],
    ['SETTLEMENT_PENDING', 'core_failure', 'FAILED', 'refund.failed'],
    // An operator's finding on a refund held at CBS_OUTCOME_UNKNOWN (issue 46): the final answer.
    ['FAILED', 'found_credited', 'COMPLETED', 'refund.completed'],
    ['FAILED', 'found_not_credited', 'FAILED', 'refund.failed'],
  ] as const)('%s --%s--> %s with %s', (from, trigger, to, event) => {
    expect(refundTransitionFor(from, trigger)).toEqual({ from, trigger, to, event });
  });

  it("has exactly those rows: every other (status, trigger) pair is refused, and only an operator's finding leaves FAILED", () => {
    expect(REFUND_TRANSITIONS).toHaveLength(9);
    const allowed = new Set(REFUND_TRANSITIONS.map((row) => `${row.from}:${row.trigger}`));
    for (const from of [null, ...REFUND_STATUSES] as Array<RefundStatus | null>)
      for (const trigger of TRIGGERS)
        expect([from, trigger, refundTransitionFor(from, trigger) !== undefined]).toEqual([
          from,
          trigger,
          allowed.has(`${from}:${trigger}`),
        ]);
    for (const status of FINAL_REFUND_STATUSES)
      expect(REFUND_TRANSITIONS.filter((row) => row.from === status && !row.trigger.startsWith('found_'))).toEqual([]);
  });

  it('shows the merchant PROCESSING, COMPLETED or FAILED: the rail wait is PROCESSING', () => {
    expect(REFUND_STATUSES.map(publicRefundStatus)).toEqual(['PROCESSING', 'PROCESSING', 'COMPLETED', 'FAILED']);
  });

  it('gives a FAILED refund its amount back unless an operator must establish where the money went', () => {
    for (const code of ['INSUFFICIENT_FUNDS', 'CBS_ERROR', 'CBS_TIMEOUT', 'VALIDATION_ERROR', null])
      expect([code, failureFreesAmount(code)]).toEqual([code, true]);
    expect(failureFreesAmount('CBS_OUTCOME_UNKNOWN')).toBe(false);
  });
});

describe('refund amount rules', () => {
  const session = (amount: bigint, amountRefunded: bigint) => ({
    id: 'ops_x',
    amount,
    amountRefunded,
    currency: 'LYD',
  });
  const refusal = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      return error instanceof GatewayError ? error.code : error;
    }
    return 'no refusal';
  };

  it('takes all that is left when no amount is given', () => {
    expect(refundAmountOf(session(10_000n, 0n), undefined)).toBe(10_000n);
    expect(refundAmountOf(session(10_000n, 2_500n), null)).toBe(7_500n);
  });

  it('takes a partial amount while it fits, up to exactly what is left', () => {
    expect(refundAmountOf(session(10_000n, 0n), 1)).toBe(1n);
    expect(refundAmountOf(session(10_000n, 4_000n), 6_000)).toBe(6_000n);
  });

  it('refuses more than what is left, and any refund of a session refunded in full', () => {
    expect(refusal(() => refundAmountOf(session(10_000n, 4_000n), 6_001))).toBe('REFUND_AMOUNT_EXCEEDED');
    expect(refusal(() => refundAmountOf(session(10_000n, 10_000n), undefined))).toBe('REFUND_AMOUNT_EXCEEDED');
    expect(refusal(() => refundAmountOf(session(10_000n, 10_000n), 1))).toBe('REFUND_AMOUNT_EXCEEDED');
  });

  it('checks the request: a positive integer amount, bounded reason and reference, no other field', () => {
    expect(parseInput(refundSessionRules, { amount: 500, reason: 'returned', reference: 'r-1' })).toEqual({
      amount: 500,
      reason: 'returned',
      reference: 'r-1',
    });
    expect(parseInput(refundSessionRules, {})).toEqual({});
    for (const bad of [{ amount: 0 }, { amount: -5 }, { amount: 1.5 }, { reason: 'x'.repeat(501) }, { iban: 'LY..' }])
      expect(refusal(() => parseInput(refundSessionRules, bad))).toBe('VALIDATION_ERROR');
  });
});
