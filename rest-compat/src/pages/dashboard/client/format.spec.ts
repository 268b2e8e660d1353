import {
  deliveryNeedsRetry,
  formatAmount,
  formatTime,
  mergeNewestFirst,
  parseAmount,
  refundTimeline,
  sessionTimeline,
} from './format';

const EXPONENTS = { LYD: 3, USD: 2, EUR: 2 };

describe('dashboard formatting', () => {
  it('writes minor units with the currency exponent', () => {
    expect(formatAmount(12500, 'LYD', EXPONENTS)).toBe('12.500 LYD');
    expect(formatAmount(1234567, 'USD', EXPONENTS)).toBe('12,345.67 USD');
    expect(formatAmount(5, 'EUR', EXPONENTS)).toBe('0.05 EUR');
    expect(formatAmount(-150, 'USD', EXPONENTS)).toBe('-1.50 USD');
  });

  it('writes times in UTC to the second', () => {
    expect(formatTime('2026-11-24T06:42:33.123Z')).toBe('2026-11-24 06:42:33 UTC');
    expect(formatTime(null)).toBe('—');
  });

  it('builds the timeline from the status history, and from the timestamps without one', () => {
    const history = sessionTimeline({
      status: 'COMPLETED',
      createdAt: '2026-01-01T10:00:00.000Z',
      updatedAt: '2026-01-01T10:00:09.000Z',
      completedAt: '2026-01-01T10:00:09.000Z',
      statusHistory: [
        { status: 'PENDING', at: '2026-01-01T10:00:00.000Z', failureCode: null },
        { status: 'PROCESSING', at: '2026-01-01T10:00:05.000Z', failureCode: null },
        { status: 'SETTLEMENT_PENDING', at: '2026-01-01T10:00:05.000Z', failureCode: null },
        { status: 'COMPLETED', at: '2026-01-01T10:00:09.000Z', failureCode: null },
      ],
    });
    expect(history.map((entry) => entry.label)).toEqual(['PENDING', 'PROCESSING', 'SETTLEMENT_PENDING', 'COMPLETED']);
    const failed = sessionTimeline({
      status: 'FAILED',
      createdAt: '2026-01-01T10:00:00Z',
      updatedAt: '2026-01-01T10:02:00Z',
      failedAt: '2026-01-01T10:02:00Z',
      failureCode: 'OTP_INVALID',
    });
    expect(failed).toEqual([
      { label: 'PENDING', at: '2026-01-01T10:00:00Z' },
      { label: 'FAILED', at: '2026-01-01T10:02:00Z', detail: 'OTP_INVALID' },
    ]);
    const pending = sessionTimeline({
      status: 'PENDING',
      createdAt: '2026-01-01T10:00:00Z',
      updatedAt: '2026-01-01T10:00:00Z',
      expiresAt: '2026-01-01T10:30:00Z',
      statusHistory: [{ status: 'PENDING', at: '2026-01-01T10:00:00Z', failureCode: null }],
    });
    expect(pending.map((entry) => entry.label)).toEqual(['PENDING', 'Expires if unpaid']);
  });

  it("places a paid session's refunds on its timeline: each asked, then completed or failed", () => {
    const refunds = refundTimeline(
      [
        {
          status: 'FAILED',
          amount: 1_000,
          currency: 'LYD',
          reason: null,
          failureCode: 'INSUFFICIENT_FUNDS',
          createdAt: '2026-01-01T10:05:00Z',
          completedAt: null,
          failedAt: '2026-01-01T10:05:01Z',
        },
        {
          status: 'COMPLETED',
          amount: 2_500,
          currency: 'LYD',
          reason: 'Returned',
          failureCode: null,
          createdAt: '2026-01-01T10:01:00Z',
          completedAt: '2026-01-01T10:01:02Z',
          failedAt: null,
        },
      ],
      EXPONENTS,
    );
    const timeline = sessionTimeline(
      {
        status: 'COMPLETED',
        createdAt: '2026-01-01T10:00:00Z',
        updatedAt: '2026-01-01T10:05:01Z',
        completedAt: '2026-01-01T10:00:30Z',
      },
      refunds,
    );
    expect(timeline).toEqual([
      { label: 'PENDING', at: '2026-01-01T10:00:00Z' },
      { label: 'COMPLETED', at: '2026-01-01T10:00:30Z' },
      { label: 'REFUND', at: '2026-01-01T10:01:00Z', detail: '2.500 LYD · Returned' },
      { label: 'REFUND COMPLETED', at: '2026-01-01T10:01:02Z', detail: '2.500 LYD' },
      { label: 'REFUND', at: '2026-01-01T10:05:00Z', detail: '1.000 LYD' },
      { label: 'REFUND FAILED', at: '2026-01-01T10:05:01Z', detail: 'INSUFFICIENT_FUNDS' },
    ]);
  });

  it('reads a typed amount in minor units of its currency, refusing what is not one', () => {
    expect(parseAmount('2.5', 'LYD', EXPONENTS)).toBe(2_500);
    expect(parseAmount(' 2.500 ', 'LYD', EXPONENTS)).toBe(2_500);
    expect(parseAmount('1,234.56', 'USD', EXPONENTS)).toBe(123_456);
    expect(parseAmount('12', 'EUR', EXPONENTS)).toBe(1_200);
    expect(parseAmount('0.001', 'LYD', EXPONENTS)).toBe(1);
    for (const text of ['', '0', '0.000', '-1', '1.2345', '1.234', 'abc', '1e3', '.5'])
      expect([text, parseAmount(text, text === '1.234' ? 'USD' : 'LYD', EXPONENTS)]).toEqual([text, null]);
  });

  it('offers a retry for a FAILED delivery and a PENDING one whose last attempt failed, not for one delivered or not yet tried', () => {
    expect(deliveryNeedsRetry({ status: 'FAILED', attempts: 12, lastStatusCode: 500 })).toBe(true);
    expect(deliveryNeedsRetry({ status: 'PENDING', attempts: 1, lastStatusCode: 500 })).toBe(true);
    expect(deliveryNeedsRetry({ status: 'PENDING', attempts: 1, lastStatusCode: null })).toBe(true);
    expect(deliveryNeedsRetry({ status: 'PENDING', attempts: 0, lastStatusCode: null })).toBe(false);
    expect(deliveryNeedsRetry({ status: 'DELIVERED', attempts: 2, lastStatusCode: 200 })).toBe(false);
  });

  it('merges a fresh first page into the loaded list, newest first, replacing rows by id', () => {
    const loaded = [
      { id: 'ops_b', createdAt: '2026-01-01T10:00:02Z', status: 'PENDING' },
      { id: 'ops_a', createdAt: '2026-01-01T10:00:01Z', status: 'PENDING' },
    ];
    const merged = mergeNewestFirst(loaded, [
      { id: 'ops_c', createdAt: '2026-01-01T10:00:03Z', status: 'PENDING' },
      { id: 'ops_b', createdAt: '2026-01-01T10:00:02Z', status: 'COMPLETED' },
    ]);
    expect(merged.map((row) => `${row.id}:${row.status}`)).toEqual([
      'ops_c:PENDING',
      'ops_b:COMPLETED',
      'ops_a:PENDING',
    ]);
  });
});
