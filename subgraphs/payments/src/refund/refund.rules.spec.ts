import { refundAmountOf } from './refund.rules';

describe('refundAmountOf', () => {
  const session = { id: 'ops_1', amount: 12_500n, amountRefunded: 2_500n, currency: 'LYD' };

  it('takes all that is left when no amount is asked, or the amount asked', () => {
    expect(refundAmountOf(session, null)).toBe(10_000n);
    expect(refundAmountOf(session, 2_500)).toBe(2_500n);
  });

  it('refuses more than is left, naming both amounts in major units (never minor units beside a code)', () => {
    expect(() => refundAmountOf(session, 15_000)).toThrow(
      expect.objectContaining({
        code: 'REFUND_AMOUNT_EXCEEDED',
        detail: 'amount: 15.000 LYD is more than the 10.000 LYD left to refund of session ops_1',
      }),
    );
  });
});
