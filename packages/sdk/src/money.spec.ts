import { CURRENCY_EXPONENTS, formatMoney } from './money';

describe('formatMoney', () => {
  it('writes minor units as major units with the currency', () => {
    expect(formatMoney(12500, 'LYD')).toBe('12.500 LYD');
    expect(formatMoney(1234567, 'USD')).toBe('12,345.67 USD');
    expect(formatMoney(5, 'EUR')).toBe('0.05 EUR');
    expect(formatMoney(-150, 'USD')).toBe('-1.50 USD');
    expect(formatMoney(0, 'LYD')).toBe('0.000 LYD');
    expect(formatMoney(123456789012345678n, 'LYD')).toBe('123,456,789,012,345.678 LYD');
  });

  it('takes an exponent given, and 2 for an unknown code', () => {
    expect(formatMoney(1500, 'JPY', 0)).toBe('1,500 JPY');
    expect(formatMoney(1500, 'XXX')).toBe('15.00 XXX');
  });

  it('knows the exponent of every currency the platform accepts', () => {
    expect(CURRENCY_EXPONENTS).toEqual({ LYD: 3, USD: 2, EUR: 2 });
  });
});
