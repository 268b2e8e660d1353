import { CURRENCY_EXPONENTS } from '@gateway/sdk';

/**
 * An amount beside a currency code, as a person would read it: "12.500 LYD", "1,000.00 USD", or
 * the mistake this looks for, minor units written as if major ("12500 LYD").
 */
const AMOUNT_WITH_A_CODE = new RegExp(
  String.raw`(?<![\d.,])(\d[\d,]*(?:\.(\d+))?) (${Object.keys(CURRENCY_EXPONENTS).join('|')})\b`,
  'g',
);

/** Minor units beside a code: an integer with no decimals before LYD, USD or EUR. */
export const MINOR_UNITS_BESIDE_A_CODE = new RegExp(
  String.raw`(?<![\d.,])\d[\d,]* (${Object.keys(CURRENCY_EXPONENTS).join('|')})\b`,
);

/** Every amount in `text` whose decimals are not its currency's (formatMoney writes them all). */
export function amountsNotInMajorUnits(text: string): string[] {
  const wrong: string[] = [];
  for (const match of text.matchAll(AMOUNT_WITH_A_CODE)) {
    const decimals = match[2]?.length ?? 0;
    if (decimals !== CURRENCY_EXPONENTS[match[3]!]) wrong.push(match[0]);
  }
  return wrong;
}
