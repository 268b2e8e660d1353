import {
  CHARGE_STATUSES,
  CHARGE_TRANSITIONS,
  chargeTransitionFor,
  FINAL_CHARGE_STATUSES,
  FINAL_MANDATE_STATUSES,
  MANDATE_STATUSES,
  MANDATE_TRANSITIONS,
  mandateRefusal,
  mandateTransitionFor,
  publicChargeStatus,
  type ChargeStatus,
  type ChargeTrigger,
  type MandateStatus,
  type MandateTrigger,
} from './mandate.transitions';

const MANDATE_TRIGGERS: MandateTrigger[] = ['created', 'otp_accepted', 'otp_failed_too_often', 'cancelled', 'revoked'];
const CHARGE_TRIGGERS: ChargeTrigger[] = [
  'created',
  'internal_credit_booked',
  'cross_bank_debit_booked',
  'credit_confirmed',
  'credit_evidenced',
  'core_failure',
];

describe('mandate transition table', () => {
  // API-CONTRACT "Mandates": confirmed by OTP (three failures: FAILED), cancelled by the merchant, revoked by the customer's bank.
  it.each([
    [null, 'created', 'PENDING_CONFIRMATION', null],
    ['PENDING_CONFIRMATION', 'otp_accepted', 'ACTIVE', 'mandate.activated'],
    ['PENDING_CONFIRMATION', 'otp_failed_too_often', 'FAILED', 'internal.mandate.failed'],
    ['PENDING_CONFIRMATION', 'cancelled', 'CANCELLED', 'mandate.cancelled'],
    ['PENDING_CONFIRMATION', 'revoked', 'CANCELLED', 'mandate.cancelled'],
    ['ACTIVE', 'cancelled', 'CANCELLED', 'mandate.cancelled'],
    ['ACTIVE', 'revoked', 'CANCELLED', 'mandate.cancelled'],
  ] as const)('%s --%s--> %s with %s', (from, trigger, to, event) => {
    expect(mandateTransitionFor(from, trigger)).toEqual({ from, trigger, to, event });
  });

  it('has exactly those rows: every other (status, trigger) pair is refused', () => {
    expect(MANDATE_TRANSITIONS).toHaveLength(7);
    const allowed = new Set(MANDATE_TRANSITIONS.map((row) => `${row.from}:${row.trigger}`));
    for (const from of [null, ...MANDATE_STATUSES] as Array<MandateStatus | null>) {
      for (const trigger of MANDATE_TRIGGERS) {
        expect([from, trigger, mandateTransitionFor(from, trigger) !== undefined]).toEqual([
          from,
          trigger,
          allowed.has(`${from}:${trigger}`),
        ]);
      }
    }
  });

  it('never leaves a final status; only a pending mandate can be confirmed or fail', () => {
    for (const status of FINAL_MANDATE_STATUSES)
      expect(MANDATE_TRANSITIONS.filter((row) => row.from === status)).toEqual([]);
    expect(
      MANDATE_TRANSITIONS.filter((row) => row.to === 'ACTIVE' || row.to === 'FAILED').map((row) => row.from),
    ).toEqual(['PENDING_CONFIRMATION', 'PENDING_CONFIRMATION']);
  });

  it('refuses with the contract codes: confirming a mandate not pending is 409, anything else on a final mandate 422 MANDATE_NOT_ACTIVE', () => {
    expect(mandateRefusal('mdt_1', 'ACTIVE', 'otp_accepted').extensions).toMatchObject({
      code: 'MANDATE_NOT_PENDING_CONFIRMATION',
      status: 409,
    });
    expect(mandateRefusal('mdt_1', 'FAILED', 'otp_accepted').extensions).toMatchObject({
      code: 'MANDATE_NOT_PENDING_CONFIRMATION',
      status: 409,
    });
    expect(mandateRefusal('mdt_1', 'FAILED', 'cancelled').extensions).toMatchObject({
      code: 'MANDATE_NOT_ACTIVE',
      status: 422,
    });
  });
});

describe('mandate charge transition table', () => {
  it.each([
    [null, 'created', 'PROCESSING', null],
    ['PROCESSING', 'internal_credit_booked', 'COMPLETED', 'mandate.charge.completed'],
    ['PROCESSING', 'cross_bank_debit_booked', 'SETTLEMENT_PENDING', null],
    ['PROCESSING', 'core_failure', 'FAILED', 'mandate.charge.failed'],
    ['SETTLEMENT_PENDING', 'credit_confirmed', 'COMPLETED', 'mandate.charge.completed'],
    ['SETTLEMENT_PENDING', 'credit_evidenced', 'COMPLETED', 'mandate.charge.completed'],
    ['SETTLEMENT_PENDING', 'core_failure', 'FAILED', 'mandate.charge.failed'],
  ] as const)('%s --%s--> %s with %s', (from, trigger, to, event) => {
    expect(chargeTransitionFor(from, trigger)).toEqual({ from, trigger, to, event });
  });

  it('has exactly those rows: every other (status, trigger) pair is refused', () => {
    expect(CHARGE_TRANSITIONS).toHaveLength(7);
    const allowed = new Set(CHARGE_TRANSITIONS.map((row) => `${row.from}:${row.trigger}`));
    for (const from of [null, ...CHARGE_STATUSES] as Array<ChargeStatus | null>) {
      for (const trigger of CHARGE_TRIGGERS) {
        expect([from, trigger, chargeTransitionFor(from, trigger) !== undefined]).toEqual([
          from,
          trigger,
          allowed.has(`${from}:${trigger}`),
        ]);
      }
    }
  });

  it('never leaves a final status; each final status has exactly one event kind', () => {
    for (const status of FINAL_CHARGE_STATUSES)
      expect(CHARGE_TRANSITIONS.filter((row) => row.from === status)).toEqual([]);
    expect(new Set(CHARGE_TRANSITIONS.filter((row) => row.to === 'COMPLETED').map((row) => row.event))).toEqual(
      new Set(['mandate.charge.completed']),
    );
    expect(new Set(CHARGE_TRANSITIONS.filter((row) => row.to === 'FAILED').map((row) => row.event))).toEqual(
      new Set(['mandate.charge.failed']),
    );
  });

  it('shows the merchant only the contract statuses (the rail wait is PROCESSING)', () => {
    expect(CHARGE_STATUSES.map(publicChargeStatus)).toEqual(['PROCESSING', 'PROCESSING', 'COMPLETED', 'FAILED']);
  });
});
