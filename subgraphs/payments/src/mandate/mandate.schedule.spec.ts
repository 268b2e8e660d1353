import { formatDate, nextChargeDate, parseDate, periodOf, periodStart } from './mandate.schedule';

const d = (text: string) => parseDate(text)!;
const starts = (start: string, interval: 'weekly' | 'monthly' | 'yearly', count: number) =>
  Array.from({ length: count }, (_, i) => formatDate(periodStart(d(start), interval, i)));

describe('mandate schedule', () => {
  it('reads only real calendar dates', () => {
    expect(formatDate(d('2026-02-28'))).toBe('2026-02-28');
    for (const bad of [
      '2026-02-29',
      '2026-13-01',
      '2026-1-01',
      '26-01-01',
      '2026-04-31',
      'tomorrow',
      '2026-01-01T00:00:00Z',
    ])
      expect(parseDate(bad)).toBeNull();
    expect(parseDate('2028-02-29')).not.toBeNull();
  });

  it('weekly: every 7 days from the start', () => {
    expect(starts('2026-11-23', 'weekly', 3)).toEqual(['2026-11-23', '2026-11-30', '2026-12-07']);
    expect(periodOf(d('2026-11-23'), 'weekly', d('2026-11-29'))).toMatchObject({ index: 0 });
    expect(periodOf(d('2026-11-23'), 'weekly', d('2026-11-30'))).toMatchObject({ index: 1 });
  });

  it("monthly: a start on the 31st charges on each month's last day when the month is shorter", () => {
    expect(starts('2026-01-31', 'monthly', 6)).toEqual([
      '2026-01-31',
      '2026-02-28',
      '2026-03-31',
      '2026-04-30',
      '2026-05-31',
      '2026-06-30',
    ]);
    expect(starts('2027-12-31', 'monthly', 3)).toEqual(['2027-12-31', '2028-01-31', '2028-02-29']);
    expect(starts('2026-01-30', 'monthly', 3)).toEqual(['2026-01-30', '2026-02-28', '2026-03-30']);
    // In April the period begins on the 30th: the 29th is still March's period.
    expect(periodOf(d('2026-01-31'), 'monthly', d('2026-04-29'))).toMatchObject({ index: 2 });
    expect(periodOf(d('2026-01-31'), 'monthly', d('2026-04-30'))).toMatchObject({ index: 3 });
    expect(periodOf(d('2026-01-15'), 'monthly', d('2026-03-14'))).toMatchObject({ index: 1 });
    expect(periodOf(d('2026-01-15'), 'monthly', d('2026-03-15'))).toMatchObject({ index: 2 });
  });

  it('yearly: the same date each year; 29 February charges on the 28th in other years', () => {
    expect(starts('2028-02-29', 'yearly', 5)).toEqual([
      '2028-02-29',
      '2029-02-28',
      '2030-02-28',
      '2031-02-28',
      '2032-02-29',
    ]);
    expect(periodOf(d('2026-06-01'), 'yearly', d('2027-05-31'))).toMatchObject({ index: 0 });
    expect(periodOf(d('2026-06-01'), 'yearly', d('2027-06-01'))).toMatchObject({ index: 1 });
  });

  it('no period before start_date; the next charge date moves to the next period once this one is charged', () => {
    expect(periodOf(d('2026-12-01'), 'monthly', d('2026-11-30'))).toBeNull();
    expect(formatDate(nextChargeDate(d('2026-12-01'), 'monthly', d('2026-11-30'), false))).toBe('2026-12-01');
    expect(formatDate(nextChargeDate(d('2026-01-31'), 'monthly', d('2026-02-10'), false))).toBe('2026-01-31');
    expect(formatDate(nextChargeDate(d('2026-01-31'), 'monthly', d('2026-02-10'), true))).toBe('2026-02-28');
  });
});
