import { counted, suspensionImpact } from './impact-text';

describe("the confirmations' numbers", () => {
  it('says one and many', () => {
    expect(counted(1, 'key')).toBe('1 key');
    expect(counted(0, 'key')).toBe('0 keys');
    expect(counted(3, 'open payment session')).toBe('3 open payment sessions');
  });

  it("states a merchant's and a TPP's suspension and resume with the API's counts", () => {
    expect(suspensionImpact('merchant', 'suspend', { openPaymentSessionCount: 3, dashboardSessionCount: 2 })).toEqual([
      '3 open payment sessions can no longer be paid',
      '2 signed-in dashboard sessions are refused (403 MERCHANT_SUSPENDED) until it is resumed',
    ]);
    expect(suspensionImpact('merchant', 'resume', { openPaymentSessionCount: 1, dashboardSessionCount: 1 })).toEqual([
      '1 open payment session can be paid again',
      '1 dashboard session works again',
    ]);
    expect(suspensionImpact('tpp', 'suspend', { authorisedConsentCount: 1 })).toEqual([
      '1 authorised consent stops working (403 TPP_SUSPENDED) until it is resumed, and the open subscriptions of its tokens close',
    ]);
    expect(suspensionImpact('tpp', 'resume', { authorisedConsentCount: 4 })).toEqual([
      '4 authorised consents work again',
    ]);
    expect(suspensionImpact('bank', 'suspend', {})).toEqual([]);
  });
});
