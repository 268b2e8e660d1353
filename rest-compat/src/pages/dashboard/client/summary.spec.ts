import { dayRange, reportHref, toListQuery, EMPTY_FILTER, FilterError, metadataPair } from './filters';
import { formatRate, lastDays, seriesByCurrency, type DailySummary } from './summary';

const EXPONENTS = { LYD: 3, USD: 2, EUR: 2 };

const row = (date: string, currency: string, figures: Partial<DailySummary> = {}): DailySummary => ({
  date,
  currency,
  sessionsCreated: 0,
  paymentsCompleted: 0,
  paymentsFailed: 0,
  volume: 0,
  refundsCompleted: 0,
  refundedAmount: 0,
  failures: [],
  ...figures,
});

describe('dashboard home figures', () => {
  it('covers the last days up to today, UTC, as an inclusive-from, exclusive-to range', () => {
    const range = lastDays(new Date('2026-03-02T23:59:00.000Z'), 3);
    expect(range).toEqual({
      from: '2026-02-28',
      to: '2026-03-03',
      dates: ['2026-02-28', '2026-03-01', '2026-03-02'],
    });
  });

  it('fills days without activity with zeros, per currency, most volume first, failures summed by code', () => {
    const dates = ['2026-03-01', '2026-03-02', '2026-03-03'];
    const series = seriesByCurrency(
      [
        row('2026-03-01', 'LYD', {
          paymentsCompleted: 3,
          paymentsFailed: 1,
          volume: 37_500,
          sessionsCreated: 5,
          failures: [{ code: 'INSUFFICIENT_FUNDS', count: 1 }],
        }),
        row('2026-03-03', 'LYD', {
          paymentsCompleted: 1,
          paymentsFailed: 2,
          volume: 12_500,
          refundsCompleted: 1,
          refundedAmount: 2_500,
          failures: [
            { code: 'OTP_FAILED', count: 2 },
            { code: 'INSUFFICIENT_FUNDS', count: 0 },
          ],
        }),
        row('2026-03-02', 'USD', { paymentsCompleted: 1, volume: 100 }),
        // Outside the range: not drawn.
        row('2026-02-01', 'EUR', { paymentsCompleted: 9, volume: 900_000 }),
      ],
      dates,
    );
    expect(series.map((entry) => entry.currency)).toEqual(['LYD', 'USD']);
    const lyd = series[0]!;
    expect(lyd.volume).toEqual([37_500, 0, 12_500]);
    expect(lyd.successRate).toEqual([0.75, null, 1 / 3]);
    expect(lyd.totals).toEqual({
      volume: 50_000,
      completed: 4,
      failed: 3,
      sessionsCreated: 5,
      refunds: 1,
      refundedAmount: 2_500,
      successRate: 4 / 7,
    });
    expect(lyd.failures).toEqual([
      { code: 'OTP_FAILED', count: 2 },
      { code: 'INSUFFICIENT_FUNDS', count: 1 },
    ]);
    expect(formatRate(lyd.totals.successRate)).toBe('57.1 %');
    expect(formatRate(null)).toBe('—');
  });
});

describe('dashboard list filters', () => {
  it('turns days into the API range and refuses a reversed one', () => {
    expect(dayRange('2026-03-01', '2026-03-01')).toEqual({
      from: '2026-03-01T00:00:00.000Z',
      to: '2026-03-02T00:00:00.000Z',
    });
    expect(dayRange('', '')).toEqual({});
    expect(dayRange('2026-03-02', '2026-03-01')).toBeNull();
    expect(dayRange('yesterday', '')).toBeNull();
    expect(reportHref('refunds', '2026-03-01', '2026-03-31')).toBe(
      '/reports/refunds.csv?from=2026-03-01&to=2026-04-01',
    );
    expect(reportHref('sessions', '2026-03-02', '2026-03-01')).toBeNull();
  });

  it('builds the filter input: only what was typed, amounts in minor units; an id search opens that object', () => {
    const options = {
      idPrefix: 'ops_',
      searchField: 'reference',
      metadata: true,
      amounts: { currency: 'LYD', exponents: EXPONENTS },
    };
    expect(toListQuery(EMPTY_FILTER, options)).toEqual({ filter: {} });
    expect(
      toListQuery(
        {
          status: 'COMPLETED',
          from: '2026-03-01',
          to: '',
          search: ' order-7 ',
          amountMin: '2.5',
          amountMax: '10',
          metadata: ' channel = web shop=2 ',
        },
        options,
      ),
    ).toEqual({
      filter: {
        status: 'COMPLETED',
        createdFrom: '2026-03-01T00:00:00.000Z',
        reference: 'order-7',
        amountMin: 2_500,
        amountMax: 10_000,
        metadata: { key: 'channel', value: 'web shop=2' },
      },
    });
    expect(toListQuery({ ...EMPTY_FILTER, search: 'ops_123' }, options)).toEqual({ id: 'ops_123' });
    const refusal = (form: Partial<typeof EMPTY_FILTER>) => {
      try {
        toListQuery({ ...EMPTY_FILTER, ...form }, options);
      } catch (error) {
        return error instanceof FilterError ? error.field : error;
      }
      return 'accepted';
    };
    expect(refusal({ amountMin: '1.2345' })).toBe('amountMin');
    expect(refusal({ amountMin: '5', amountMax: '1' })).toBe('amountMax');
    expect(refusal({ from: '2026-03-02', to: '2026-03-01' })).toBe('createdTo');
    expect(refusal({ metadata: 'channel' })).toBe('metadata');
    expect(refusal({ metadata: '=web' })).toBe('metadata');
    expect(refusal({ metadata: 'channel=  ' })).toBe('metadata');
  });

  it('reads one metadata pair, sends it only where the list has metadata, and takes ids only in a search without a field', () => {
    expect(metadataPair('order_id=1042')).toEqual({ key: 'order_id', value: '1042' });
    expect(metadataPair('note=a=b')).toEqual({ key: 'note', value: 'a=b' });
    // Deliveries carry no metadata: the field is not theirs, whatever it holds.
    expect(toListQuery({ ...EMPTY_FILTER, metadata: 'x=1' }, { idPrefix: 'evt_', searchField: 'event' })).toEqual({
      filter: {},
    });
    // Mandates: a search is an id, and anything else is refused, naming the field.
    const mandates = { idPrefix: 'mdt_', metadata: true };
    expect(toListQuery({ ...EMPTY_FILTER, search: 'mdt_9' }, mandates)).toEqual({ id: 'mdt_9' });
    expect(toListQuery({ ...EMPTY_FILTER, status: 'ACTIVE', metadata: 'plan=gold' }, mandates)).toEqual({
      filter: { status: 'ACTIVE', metadata: { key: 'plan', value: 'gold' } },
    });
    expect(() => toListQuery({ ...EMPTY_FILTER, search: 'gold' }, mandates)).toThrow(FilterError);
  });
});
