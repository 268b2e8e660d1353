import {
  FINAL_STATUSES,
  refusal,
  SESSION_STATUSES,
  SESSION_TRANSITIONS,
  transitionFor,
  type SessionStatus,
  type SessionTrigger,
} from './session.transitions';

const TRIGGERS: SessionTrigger[] = [
  'created',
  'otp_accepted',
  'otp_failed_too_often',
  'ttl_elapsed',
  'ended_by_merchant',
  'internal_credit_booked',
  'cross_bank_debit_booked',
  'credit_confirmed',
  'credit_evidenced',
  'core_failure',
];

describe('payment session transition table', () => {
  // The spec's "States and transitions" table, row by row (the FAILED row names "non-final state").
  it.each([
    [null, 'created', 'PENDING', 'payment.initiated'],
    ['PENDING', 'otp_accepted', 'PROCESSING', 'payment.processing'],
    ['PROCESSING', 'internal_credit_booked', 'COMPLETED', 'payment.completed'],
    ['PROCESSING', 'cross_bank_debit_booked', 'SETTLEMENT_PENDING', 'payment.processing'],
    ['SETTLEMENT_PENDING', 'credit_confirmed', 'COMPLETED', 'payment.completed'],
    ['SETTLEMENT_PENDING', 'credit_evidenced', 'COMPLETED', 'payment.completed'],
    ['PENDING', 'otp_failed_too_often', 'FAILED', 'payment.failed'],
    ['PROCESSING', 'core_failure', 'FAILED', 'payment.failed'],
    ['SETTLEMENT_PENDING', 'core_failure', 'FAILED', 'payment.failed'],
    ['PENDING', 'ttl_elapsed', 'EXPIRED', 'payment.expired'],
    // API-CONTRACT "Refunds and ending a session early": the merchant ends a PENDING session.
    ['PENDING', 'ended_by_merchant', 'EXPIRED', 'payment.expired'],
  ] as const)('%s --%s--> %s with %s', (from, trigger, to, event) => {
    expect(transitionFor(from, trigger)).toEqual({ from, trigger, to, event });
  });

  it('has exactly those rows: every other (status, trigger) pair is refused', () => {
    expect(SESSION_TRANSITIONS).toHaveLength(11);
    const allowed = new Set(SESSION_TRANSITIONS.map((row) => `${row.from}:${row.trigger}`));
    for (const from of [null, ...SESSION_STATUSES] as Array<SessionStatus | null>) {
      for (const trigger of TRIGGERS) {
        expect([from, trigger, transitionFor(from, trigger) !== undefined]).toEqual([
          from,
          trigger,
          allowed.has(`${from}:${trigger}`),
        ]);
      }
    }
  });

  it('never leaves a final status, and same-bank credits never pass through SETTLEMENT_PENDING', () => {
    for (const status of FINAL_STATUSES) expect(SESSION_TRANSITIONS.filter((row) => row.from === status)).toEqual([]);
    expect(transitionFor('PROCESSING', 'internal_credit_booked')?.to).toBe('COMPLETED');
    expect(SESSION_TRANSITIONS.filter((row) => row.to === 'SETTLEMENT_PENDING').map((row) => row.trigger)).toEqual([
      'cross_bank_debit_booked',
    ]);
  });

  it("refuses moves in the spec's words", () => {
    expect(refusal('ops_1', 'COMPLETED', 'otp_accepted').extensions).toMatchObject({
      code: 'SESSION_ALREADY_COMPLETED',
      status: 409,
    });
    expect(refusal('ops_1', 'FAILED', 'otp_accepted').extensions).toMatchObject({
      code: 'SESSION_FAILED',
      status: 409,
    });
    expect(refusal('ops_1', 'EXPIRED', 'otp_accepted').extensions).toMatchObject({
      code: 'SESSION_EXPIRED',
      status: 422,
    });
    expect(refusal('ops_1', 'PROCESSING', 'otp_accepted').extensions).toMatchObject({
      code: 'SESSION_IN_PROGRESS',
      status: 409,
    });
  });
});
