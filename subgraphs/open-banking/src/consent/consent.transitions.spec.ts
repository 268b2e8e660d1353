import {
  CONSENT_REACHED_AT,
  CONSENT_STATUSES,
  CONSENT_TRANSITIONS,
  consentRefusal,
  consentTransitionFor,
  FINAL_CONSENT_STATUSES,
  type ConsentStatus,
  type ConsentTrigger,
} from './consent.transitions';

const TRIGGERS: ConsentTrigger[] = ['created', 'customer_approved', 'customer_rejected', 'revoked', 'expiry_reached'];

describe('consent transition table', () => {
  it.each([
    [null, 'created', 'AWAITING_AUTHORISATION', null],
    ['AWAITING_AUTHORISATION', 'customer_approved', 'AUTHORISED', 'consent.granted'],
    ['AWAITING_AUTHORISATION', 'customer_rejected', 'REJECTED', 'internal.consent.rejected'],
    ['AWAITING_AUTHORISATION', 'expiry_reached', 'EXPIRED', 'consent.expired'],
    ['AWAITING_AUTHORISATION', 'revoked', 'REVOKED', 'consent.revoked'],
    ['AUTHORISED', 'revoked', 'REVOKED', 'consent.revoked'],
    ['AUTHORISED', 'expiry_reached', 'EXPIRED', 'consent.expired'],
  ] as const)('%s --%s--> %s with %s', (from, trigger, to, event) => {
    expect(consentTransitionFor(from, trigger)).toEqual({ from, trigger, to, event });
  });

  it('has exactly those rows: every other (status, trigger) pair is refused', () => {
    expect(CONSENT_TRANSITIONS).toHaveLength(7);
    const allowed = new Set(CONSENT_TRANSITIONS.map((row) => `${row.from}:${row.trigger}`));
    for (const from of [null, ...CONSENT_STATUSES] as Array<ConsentStatus | null>) {
      for (const trigger of TRIGGERS) {
        expect([from, trigger, consentTransitionFor(from, trigger) !== undefined]).toEqual([
          from,
          trigger,
          allowed.has(`${from}:${trigger}`),
        ]);
      }
    }
  });

  it('never leaves a final status; an authorised consent is not approved again, a revoked one never approved', () => {
    for (const status of FINAL_CONSENT_STATUSES)
      expect(CONSENT_TRANSITIONS.filter((row) => row.from === status)).toEqual([]);
    expect(consentTransitionFor('AUTHORISED', 'customer_approved')).toBeUndefined();
    expect(consentTransitionFor('REVOKED', 'customer_approved')).toBeUndefined();
  });

  it("writes the spec's three consent events, each on the moves that mean it", () => {
    const byEvent = (event: string) => CONSENT_TRANSITIONS.filter((row) => row.event === event).map((row) => row.to);
    expect(byEvent('consent.granted')).toEqual(['AUTHORISED']);
    expect(byEvent('consent.revoked')).toEqual(['REVOKED', 'REVOKED']);
    expect(byEvent('consent.expired')).toEqual(['EXPIRED', 'EXPIRED']);
  });

  it('tells the router of a rejection outside the webhook namespace: no consumer of consent.* sees it', () => {
    const kinds = CONSENT_TRANSITIONS.filter((row) => row.event && !row.event.startsWith('consent.')).map((row) => [
      row.to,
      row.event,
    ]);
    expect(kinds).toEqual([['REJECTED', 'internal.consent.rejected']]);
  });

  it("records a timestamp column for every status, and refuses moves with the contract's codes", () => {
    expect(Object.keys(CONSENT_REACHED_AT).sort()).toEqual([...CONSENT_STATUSES].sort());
    expect(consentRefusal('con_1', 'REVOKED', 'revoked').extensions).toMatchObject({
      code: 'CONSENT_REVOKED',
      status: 401,
    });
    expect(consentRefusal('con_1', 'EXPIRED', 'customer_approved').extensions).toMatchObject({
      code: 'CONSENT_EXPIRED',
      status: 401,
    });
    expect(consentRefusal('con_1', 'REJECTED', 'customer_approved').extensions).toMatchObject({
      code: 'VALIDATION_ERROR',
    });
  });
});
