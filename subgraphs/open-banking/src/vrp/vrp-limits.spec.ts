import fc from 'fast-check';
import {
  judgePayment,
  periodOf,
  PERIOD_TYPES,
  type ControlParameters,
  type PeriodAlignment,
  type PeriodicLimit,
  type PeriodType,
} from './vrp-limits';

const DAY_MS = 86_400_000;
const utc = (iso: string) => new Date(iso);

/*
 * The oracle: which period of a limit an instant falls in, as an index, counted another way than
 * vrp-limits.ts does (by calendar fields and whole months elapsed, never by adding months to an
 * anchor), so the two can disagree.
 */
function periodIndex(type: PeriodType, alignment: PeriodAlignment, validFrom: Date, at: Date): number {
  const days = Math.floor(at.getTime() / DAY_MS);
  const anchorDays = Math.floor(validFrom.getTime() / DAY_MS);
  const lengths: Partial<Record<PeriodType, number>> = { Day: 1, Week: 7, Fortnight: 14 };
  const months: Partial<Record<PeriodType, number>> = { Month: 1, 'Half-year': 6, Year: 12 };
  const length = lengths[type];
  if (length !== undefined) {
    // 1970-01-05 was a Monday.
    const anchor = alignment === 'Calendar' ? (length === 7 ? 4 : 0) : anchorDays;
    return Math.floor((days - anchor) / length);
  }
  const size = months[type]!;
  if (alignment === 'Calendar') return Math.floor((at.getUTCFullYear() * 12 + at.getUTCMonth()) / size);
  // Whole months since valid_from: the month boundary is valid_from's day, or the month's last day.
  let elapsed = (at.getUTCFullYear() - validFrom.getUTCFullYear()) * 12 + (at.getUTCMonth() - validFrom.getUTCMonth());
  const lastDay = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 0)).getUTCDate();
  const boundary = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), Math.min(validFrom.getUTCDate(), lastDay));
  if (at.getTime() < boundary) elapsed -= 1;
  return Math.floor(elapsed / size);
}

const alignments = (type: PeriodType): PeriodAlignment[] =>
  type === 'Fortnight' ? ['Consent'] : ['Consent', 'Calendar'];

const limitArbitrary: fc.Arbitrary<PeriodicLimit> = fc.constantFrom(...PERIOD_TYPES).chain((periodType) =>
  fc.record({
    periodType: fc.constant(periodType),
    periodAlignment: fc.constantFrom(...alignments(periodType)),
    amount: fc.bigInt({ min: 1n, max: 5_000n }),
  }),
);

/** Instants between 2024 and 2030, to the millisecond. */
const instant = fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2030, 0, 1) }).map((ms) => new Date(ms));

describe('VRP control parameters', () => {
  describe('periodOf', () => {
    it.each([
      ['Day', 'Calendar', '2026-11-29T13:00:00Z', '2026-11-29T00:00:00Z', '2026-11-30T00:00:00Z'],
      ['Week', 'Calendar', '2026-11-29T13:00:00Z', '2026-11-23T00:00:00Z', '2026-11-30T00:00:00Z'],
      ['Month', 'Calendar', '2026-11-29T13:00:00Z', '2026-11-01T00:00:00Z', '2026-12-01T00:00:00Z'],
      ['Half-year', 'Calendar', '2026-11-29T13:00:00Z', '2026-07-01T00:00:00Z', '2027-01-01T00:00:00Z'],
      ['Year', 'Calendar', '2026-11-29T13:00:00Z', '2026-01-01T00:00:00Z', '2027-01-01T00:00:00Z'],
      ['Week', 'Consent', '2026-11-29T13:00:00Z', '2026-11-24T00:00:00Z', '2026-12-01T00:00:00Z'],
      ['Fortnight', 'Consent', '2026-11-29T13:00:00Z', '2026-11-17T00:00:00Z', '2026-12-01T00:00:00Z'],
      ['Month', 'Consent', '2026-11-29T13:00:00Z', '2026-11-17T00:00:00Z', '2026-12-17T00:00:00Z'],
    ] as const)(
      '%s (%s) at %s runs from %s to %s (consent from 2026-11-17 10:00)',
      (type, alignment, at, start, end) => {
        const period = periodOf({ periodType: type, periodAlignment: alignment }, utc('2026-11-17T10:00:00Z'), utc(at));
        expect(period).toEqual({ start: utc(start), end: utc(end) });
      },
    );

    it('keeps a Consent month on the 31st where the month has one, on its last day where it has not', () => {
      const from = utc('2026-01-31T08:00:00Z');
      const month = { periodType: 'Month', periodAlignment: 'Consent' } as const;
      expect(periodOf(month, from, utc('2026-02-27T12:00:00Z'))).toEqual({
        start: utc('2026-01-31T00:00:00Z'),
        end: utc('2026-02-28T00:00:00Z'),
      });
      expect(periodOf(month, from, utc('2026-03-05T12:00:00Z'))).toEqual({
        start: utc('2026-02-28T00:00:00Z'),
        end: utc('2026-03-31T00:00:00Z'),
      });
    });

    it('refuses a Calendar Fortnight', () => {
      expect(() => periodOf({ periodType: 'Fortnight', periodAlignment: 'Calendar' }, new Date(), new Date())).toThrow(
        /Fortnight/,
      );
    });

    it('holds the instant, starts and ends at UTC midnight, and tiles time (property)', () => {
      fc.assert(
        fc.property(limitArbitrary, instant, instant, (limit, validFrom, at) => {
          const period = periodOf(limit, validFrom, at);
          expect(period.start.getTime()).toBeLessThanOrEqual(at.getTime());
          expect(period.end.getTime()).toBeGreaterThan(at.getTime());
          expect(period.start.getTime() % DAY_MS).toBe(0);
          expect(period.end.getTime() % DAY_MS).toBe(0);
          // The next period starts where this one ends, and the same index is the same period.
          expect(periodOf(limit, validFrom, period.end).start).toEqual(period.end);
          expect(periodIndex(limit.periodType, limit.periodAlignment, validFrom, period.start)).toBe(
            periodIndex(limit.periodType, limit.periodAlignment, validFrom, at),
          );
          expect(periodIndex(limit.periodType, limit.periodAlignment, validFrom, period.end)).toBe(
            periodIndex(limit.periodType, limit.periodAlignment, validFrom, at) + 1,
          );
        }),
        { numRuns: 2_000 },
      );
    });
  });

  describe('judgePayment', () => {
    /**
     * Random streams of payments (increasing clocks over months, amounts) against random limits,
     * judged one after another with what the accepted ones used, counted by the oracle: a payment
     * is accepted if and only if it is within the validity window, at most the individual maximum,
     * and every limit's total over the accepted payments in the same period (by the oracle's index)
     * plus it stays within the limit. Payments judged FAILED later free their share.
     */
    it('accepts a payment if and only if every aligned period total and the individual maximum hold (property)', () => {
      const stream = fc.array(
        fc.record({
          gapMs: fc.integer({ min: 0, max: 9 * DAY_MS }),
          amount: fc.bigInt({ min: 1n, max: 2_000n }),
          failsLater: fc.boolean(),
        }),
        { minLength: 1, maxLength: 60 },
      );
      const uniqueLimits = fc
        .uniqueArray(limitArbitrary, {
          minLength: 1,
          maxLength: 4,
          selector: (limit) => `${limit.periodType}/${limit.periodAlignment}`,
        })
        .map((limits) => limits as readonly PeriodicLimit[]);
      fc.assert(
        fc.property(
          instant,
          uniqueLimits,
          fc.bigInt({ min: 1n, max: 2_500n }),
          fc.option(fc.integer({ min: 1, max: 400 }), { nil: null }),
          stream,
          (validFrom, periodicLimits, maximumIndividualAmount, validDays, payments) => {
            const parameters: ControlParameters = {
              currency: 'LYD',
              maximumIndividualAmount,
              periodicLimits,
              validFrom,
              validTo: validDays === null ? null : new Date(validFrom.getTime() + validDays * DAY_MS),
            };
            const counted: Array<{ at: Date; amount: bigint }> = [];
            // Start up to two days before valid_from, so the window's start is crossed too.
            let clock = validFrom.getTime() - 2 * DAY_MS;
            for (const payment of payments) {
              clock += payment.gapMs;
              const at = new Date(clock);
              const used = periodicLimits.map((limit) =>
                counted
                  .filter(
                    (earlier) =>
                      periodIndex(limit.periodType, limit.periodAlignment, validFrom, earlier.at) ===
                      periodIndex(limit.periodType, limit.periodAlignment, validFrom, at),
                  )
                  .reduce((sum, earlier) => sum + earlier.amount, 0n),
              );
              const verdict = judgePayment(parameters, at, payment.amount, used);
              const inWindow =
                at.getTime() >= validFrom.getTime() &&
                (parameters.validTo === null || at.getTime() < parameters.validTo.getTime());
              const holds =
                payment.amount <= maximumIndividualAmount &&
                periodicLimits.every((limit, index) => used[index]! + payment.amount <= limit.amount);
              expect(verdict.kind).toBe(!inWindow ? 'outside_validity' : holds ? 'accepted' : 'limit_exceeded');
              if (verdict.kind === 'accepted' && !payment.failsLater) counted.push({ at, amount: payment.amount });
            }
          },
        ),
        { numRuns: 500 },
      );
    });

    it('names the limit a refusal is for, and what remains of it, in major units with the currency', () => {
      const verdict = judgePayment(
        {
          currency: 'LYD',
          maximumIndividualAmount: 1_000n,
          periodicLimits: [{ periodType: 'Month', periodAlignment: 'Calendar', amount: 1_500n }],
          validFrom: utc('2026-11-01T00:00:00Z'),
          validTo: null,
        },
        utc('2026-11-29T10:00:00Z'),
        600n,
        [1_000n],
      );
      expect(verdict).toEqual({
        kind: 'limit_exceeded',
        limit: 'Month (Calendar)',
        detail:
          "amount: 0.600 LYD would bring the Month (Calendar) period's total to 1.600 LYD, above its limit of 1.500 LYD (0.500 LYD remaining)",
      });
      expect(
        judgePayment(
          {
            currency: 'USD',
            maximumIndividualAmount: 1_000n,
            periodicLimits: [],
            validFrom: utc('2026-11-01T00:00:00Z'),
            validTo: null,
          },
          utc('2026-11-29T10:00:00Z'),
          1_001n,
          [],
        ),
      ).toEqual({
        kind: 'limit_exceeded',
        limit: 'maximum_individual_amount',
        detail: 'amount: 10.01 USD is above the maximum individual amount of 10.00 USD',
      });
    });
  });
});
