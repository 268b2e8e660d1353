import fc from 'fast-check';
import type { Currency } from '@gateway/kernel';
import { netPositions, unbalancedCurrencies, type Owed } from './netting';
import {
  cycleMove,
  cycleTriggerFor,
  CYCLE_TRANSITIONS,
  positionMove,
  POSITION_TRANSITIONS,
} from './settlement.transitions';

const BANKS = ['alpha', 'beta', 'gamma', 'delta', 'eps'] as const;
const CURRENCIES: Currency[] = ['LYD', 'USD', 'EUR'];

/** A random cross-bank movement among 5 banks and 3 currencies (amounts up to 2^53: sums go past it). */
const movement = fc
  .record({
    debtor: fc.constantFrom(...BANKS),
    creditor: fc.constantFrom(...BANKS),
    currency: fc.constantFrom(...CURRENCIES),
    amount: fc.bigInt({ min: 1n, max: 2n ** 53n }),
  })
  .filter((m) => m.debtor !== m.creditor)
  .map((m): Owed => ({ debtorBank: m.debtor, creditorBank: m.creditor, currency: m.currency, amount: m.amount }));

/** The naive statement: the full matrix of who owes whom, then each bank's receivables minus its payables. */
function naiveNets(movements: Owed[]): Map<string, bigint> {
  const matrix = new Map<string, bigint>();
  for (const m of movements) {
    const key = `${m.currency}|${m.debtorBank}|${m.creditorBank}`;
    matrix.set(key, (matrix.get(key) ?? 0n) + m.amount);
  }
  const nets = new Map<string, bigint>();
  for (const currency of CURRENCIES) {
    for (const bank of BANKS) {
      let net = 0n;
      for (const other of BANKS) {
        if (other === bank) continue;
        net += (matrix.get(`${currency}|${other}|${bank}`) ?? 0n) - (matrix.get(`${currency}|${bank}|${other}`) ?? 0n);
      }
      if (net !== 0n) nets.set(`${currency}|${bank}`, net);
    }
  }
  return nets;
}

const asMap = (positions: ReturnType<typeof netPositions>) =>
  new Map(positions.map((p) => [`${p.currency}|${p.bankHandle}`, p.netAmount]));

describe('netting (settlement cycles)', () => {
  it('nets per bank and currency: the creditor bank is owed (positive), the debtor owes (negative); zero nets get no position', () => {
    const positions = netPositions([
      { debtorBank: 'alpha', creditorBank: 'beta', currency: 'LYD', amount: 700n },
      { debtorBank: 'beta', creditorBank: 'alpha', currency: 'LYD', amount: 200n },
      { debtorBank: 'beta', creditorBank: 'gamma', currency: 'LYD', amount: 500n },
      { debtorBank: 'alpha', creditorBank: 'beta', currency: 'USD', amount: 9n },
      { debtorBank: 'beta', creditorBank: 'alpha', currency: 'USD', amount: 9n },
    ]);
    expect(positions).toEqual([
      { bankHandle: 'alpha', currency: 'LYD', netAmount: -500n },
      { bankHandle: 'gamma', currency: 'LYD', netAmount: 500n },
    ]);
    expect(netPositions([])).toEqual([]);
  });

  it('sums past 2^53 exactly (bigint all the way)', () => {
    const big = 2n ** 53n + 1n;
    const positions = netPositions([
      { debtorBank: 'a', creditorBank: 'b', currency: 'LYD', amount: big },
      { debtorBank: 'a', creditorBank: 'b', currency: 'LYD', amount: big },
    ]);
    expect(positions).toEqual([
      { bankHandle: 'a', currency: 'LYD', netAmount: -2n * big },
      { bankHandle: 'b', currency: 'LYD', netAmount: 2n * big },
    ]);
  });

  it('finds the currencies that do not sum to zero (the check made before any call)', () => {
    expect(
      unbalancedCurrencies([
        { bankHandle: 'a', currency: 'LYD', netAmount: 5n },
        { bankHandle: 'b', currency: 'LYD', netAmount: -5n },
      ]),
    ).toEqual([]);
    expect(
      unbalancedCurrencies([
        { bankHandle: 'a', currency: 'LYD', netAmount: 5n },
        { bankHandle: 'b', currency: 'EUR', netAmount: -5n },
      ]),
    ).toEqual(['LYD', 'EUR']);
  });

  it('property: for random movements among 5 banks and 3 currencies, positions sum to zero per currency and equal the naive pairwise totals', () => {
    fc.assert(
      fc.property(fc.array(movement, { maxLength: 200 }), (movements) => {
        const positions = netPositions(movements);
        expect(unbalancedCurrencies(positions)).toEqual([]);
        for (const currency of CURRENCIES) {
          expect(positions.filter((p) => p.currency === currency).reduce((sum, p) => sum + p.netAmount, 0n)).toBe(0n);
        }
        expect(asMap(positions)).toEqual(naiveNets(movements));
        expect(positions.every((p) => p.netAmount !== 0n)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('property: netting the pairwise totals (what the cycle reads from the database) equals netting every movement, in any order', () => {
    fc.assert(
      fc.property(fc.array(movement, { maxLength: 100 }), fc.func(fc.integer()), (movements, order) => {
        const totals = new Map<string, Owed>();
        for (const m of movements) {
          const key = `${m.currency}|${m.debtorBank}|${m.creditorBank}`;
          const total = totals.get(key) ?? { ...m, amount: 0n };
          total.amount += m.amount;
          totals.set(key, total);
        }
        const shuffled = [...movements].sort((a, b) => order(a) - order(b));
        expect(netPositions(totals.values())).toEqual(netPositions(movements));
        expect(netPositions(shuffled)).toEqual(netPositions(movements));
      }),
      { numRuns: 200 },
    );
  });
});

describe('settlement transition tables', () => {
  it('never moves a SETTLED cycle or position, and refuses moves not in the table', () => {
    expect(CYCLE_TRANSITIONS.some((row) => row.from === 'SETTLED')).toBe(false);
    expect(POSITION_TRANSITIONS.some((row) => row.from === 'SETTLED')).toBe(false);
    expect(cycleMove('SETTLED', 'retrying')).toBeUndefined();
    expect(positionMove('SETTLED', 'refused')).toBeUndefined();
    expect(positionMove('PENDING', 'retried_unknown')).toBeUndefined();
  });

  it("derives a cycle's move from its positions", () => {
    expect(cycleMove('SETTLING', cycleTriggerFor(['SETTLED', 'SETTLED']))).toBe('SETTLED');
    expect(cycleMove('SETTLING', cycleTriggerFor(['SETTLED', 'PENDING']))).toBeUndefined();
    expect(cycleMove('SETTLING', cycleTriggerFor(['SETTLED', 'FAILED']))).toBe('PARTIALLY_FAILED');
    expect(cycleMove('SETTLING', cycleTriggerFor(['FAILED', 'PENDING']))).toBeUndefined();
    expect(cycleMove('PARTIALLY_FAILED', cycleTriggerFor(['SETTLED', 'PENDING']))).toBe('SETTLING');
    expect(cycleMove('PARTIALLY_FAILED', cycleTriggerFor(['SETTLED', 'SETTLED']))).toBe('SETTLED');
    expect(cycleMove('OPEN', 'closed_empty')).toBe('SETTLED');
  });
});
