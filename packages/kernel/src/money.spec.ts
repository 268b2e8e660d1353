import { CURRENCY_EXPONENTS } from '@gateway/sdk';
import { CURRENCIES, formatMoney } from './money';

describe('money', () => {
  it('writes amounts with the exponents of the currencies it accepts', () => {
    expect(CURRENCY_EXPONENTS).toEqual(CURRENCIES);
    expect(formatMoney(12500, 'LYD')).toBe('12.500 LYD');
  });
});
