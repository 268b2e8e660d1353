import type { Currency } from '@gateway/kernel';
import type { Owed } from '../obligation/obligation.service';

export type { Owed };

/** A bank's net in one currency: positive, the bank is owed (a credit to its settlement account); negative, it owes (a debit). */
export interface NetPosition {
  bankHandle: string;
  currency: Currency;
  netAmount: bigint;
}

/**
 * Nets what banks owe each other into one position per bank and currency (bigint all the way:
 * no sum is ever rounded). Zero nets are left out: a bank whose net is zero gets no call.
 * Sorted by currency then bank, so a cycle's positions read the same every time.
 */
export function netPositions(owed: Iterable<Owed>): NetPosition[] {
  const nets = new Map<string, NetPosition>();
  const add = (bankHandle: string, currency: Currency, amount: bigint) => {
    const key = `${currency}\n${bankHandle}`;
    const position = nets.get(key) ?? { bankHandle, currency, netAmount: 0n };
    position.netAmount += amount;
    nets.set(key, position);
  };
  for (const { debtorBank, creditorBank, currency, amount } of owed) {
    add(creditorBank, currency, amount);
    add(debtorBank, currency, -amount);
  }
  return [...nets.values()]
    .filter((position) => position.netAmount !== 0n)
    .sort((a, b) =>
      a.currency === b.currency ? compare(a.bankHandle, b.bankHandle) : compare(a.currency, b.currency),
    );
}

/**
 * Currencies whose positions do not sum to zero. Netting cannot produce one, so any is a defect
 * (or tampered data): a cycle checks this before it makes a single call, and refuses to settle.
 */
export function unbalancedCurrencies(positions: readonly NetPosition[]): Currency[] {
  const sums = new Map<Currency, bigint>();
  for (const { currency, netAmount } of positions) sums.set(currency, (sums.get(currency) ?? 0n) + netAmount);
  return [...sums].filter(([, sum]) => sum !== 0n).map(([currency]) => currency);
}

const compare = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
