import { GatewayError } from './errors';

/** Currencies the platform accepts (spec "Conventions"), with their minor-unit exponent. */
export const CURRENCIES = { LYD: 3, USD: 2, EUR: 2 } as const;
// The SDK's formatter keeps the same table (CURRENCY_EXPONENTS): money.spec checks they agree.
export type Currency = keyof typeof CURRENCIES;

export function isCurrency(value: unknown): value is Currency {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(CURRENCIES, value);
}

/** Amounts are positive integers of minor units and stay within the safe-integer range. */
export function assertAmount(amount: unknown, field = 'amount'): asserts amount is number {
  if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0) {
    throw new GatewayError('VALIDATION_ERROR', `${field}: must be a positive integer of minor units`);
  }
}

export function assertCurrency(currency: unknown, field = 'currency'): asserts currency is Currency {
  if (!isCurrency(currency)) {
    throw new GatewayError('VALIDATION_ERROR', `${field}: must be one of ${Object.keys(CURRENCIES).join(', ')}`);
  }
}

export interface Money {
  amount: number;
  currency: Currency;
}

/** How a person reads an amount: "12.500 LYD" (the SDK's formatter, one for the whole platform). */
export { formatMoney } from '@gateway/sdk/money';
