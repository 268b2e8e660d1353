/**
 * The one way money is written for a person to read: major units with the currency code, from
 * integer minor units, with integer arithmetic only. The platform writes every amount a person
 * reads through it (error details, the customer pages, the dashboard in the browser, the CLI, the
 * docs), and merchants may too. No imports: the dashboard's bundle takes this file alone
 * (`@gateway/sdk/money`).
 */

/** Digits after the point per currency (ISO 4217) for the currencies the platform accepts. */
export const CURRENCY_EXPONENTS: Readonly<Record<string, number>> = { LYD: 3, USD: 2, EUR: 2 };

/**
 * 12500 LYD -> "12.500 LYD", 1234567 USD -> "12,345.67 USD", -150 USD -> "-1.50 USD". The exponent
 * defaults to the currency's (2 for a code the table does not know).
 */
export function formatMoney(
  amount: number | bigint,
  currency: string,
  exponent: number = CURRENCY_EXPONENTS[currency] ?? 2,
): string {
  const minor = BigInt(amount);
  const sign = minor < 0n ? '-' : '';
  const absolute = minor < 0n ? -minor : minor;
  const scale = 10n ** BigInt(exponent);
  const major = (absolute / scale).toLocaleString('en-US');
  return exponent === 0
    ? `${sign}${major} ${currency}`
    : `${sign}${major}.${String(absolute % scale).padStart(exponent, '0')} ${currency}`;
}
