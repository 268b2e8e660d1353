import { parseIban } from '@gateway/kernel';
import { newLyIban } from '../iban';
import { TEST_OTP, TEST_PAYERS, parseTestPayerAlias, testPayerByIban, testPayerRouting } from './payers';

describe('test payers', () => {
  const oasis = { handle: 'oasis', institutionCode: '011' };

  it('lists the documented payers, each with an outcome, an OTP rule and a behaviour', () => {
    expect(TEST_PAYERS.map((payer) => payer.name)).toEqual([
      'success',
      'wrong-otp',
      'insufficient',
      'timeout',
      'unknown',
      'credit-refused',
      'late-confirm',
    ]);
    for (const payer of TEST_PAYERS) {
      expect(payer.outcome.length).toBeGreaterThan(10);
      expect(payer.behaviour).toBe(payer.name);
      expect(payer.accountNumber).toMatch(/^\d{15}$/);
    }
    expect(TEST_PAYERS.find((payer) => payer.name === 'wrong-otp')?.otp).toBeNull();
    expect(TEST_PAYERS.find((payer) => payer.name === 'success')).toMatchObject({
      otp: TEST_OTP,
      balance: 100_000_000,
    });
    expect(TEST_PAYERS.find((payer) => payer.name === 'insufficient')?.balance).toBe(0);
    expect(new Set(TEST_PAYERS.map((payer) => payer.accountNumber)).size).toBe(TEST_PAYERS.length);
  });

  it('parses `<name>@<bank_handle>` case-insensitively and trimmed', () => {
    expect(parseTestPayerAlias('success@oasis')).toEqual({
      payer: expect.objectContaining({ name: 'success' }),
      bankHandle: 'oasis',
    });
    expect(parseTestPayerAlias('  Credit-Refused@OASIS ')).toEqual({
      payer: expect.objectContaining({ name: 'credit-refused' }),
      bankHandle: 'oasis',
    });
    expect(parseTestPayerAlias('late-confirm@bank_2')?.bankHandle).toBe('bank_2');
  });

  it.each([
    'nobody@oasis',
    'success',
    'success@',
    '@oasis',
    'success@o',
    'success@1bank',
    'success@oasis@x',
    'succ ess@oasis',
    '',
  ])('refuses %p', (alias) => {
    expect(parseTestPayerAlias(alias)).toBeNull();
  });

  it('routes a payer alias to a fixed, valid IBAN of that bank, known by test-<name>', () => {
    const routing = testPayerRouting('Success@Oasis', oasis);
    expect(routing).toEqual({
      handle: 'success@oasis',
      iban: expect.any(String),
      bankHandle: 'oasis',
      institutionCode: '011',
      bankCustomerRef: 'test-success',
      status: 'ACTIVE',
    });
    expect(parseIban(routing!.iban)).toMatchObject({ countryCode: 'LY', institutionCode: '011' });
    expect(testPayerRouting('success@oasis', oasis)?.iban).toBe(routing!.iban);
    expect(testPayerRouting('timeout@oasis', oasis)?.iban).not.toBe(routing!.iban);
    const elsewhere = testPayerRouting('success@dunes', { handle: 'dunes', institutionCode: '012' });
    expect(parseIban(elsewhere!.iban)?.institutionCode).toBe('012');
    expect(elsewhere!.iban).not.toBe(routing!.iban);
    for (const payer of TEST_PAYERS)
      expect(parseIban(testPayerRouting(`${payer.name}@oasis`, oasis)!.iban)).not.toBeNull();
  });

  it('routes nothing for another bank or a non-payer alias', () => {
    expect(testPayerRouting('success@dunes', oasis)).toBeNull();
    expect(testPayerRouting('amal@oasis', oasis)).toBeNull();
  });

  it('tells a test payer by its IBAN at any bank, in any writing', () => {
    const iban = testPayerRouting('unknown@oasis', oasis)!.iban;
    expect(testPayerByIban(iban)?.name).toBe('unknown');
    expect(testPayerByIban(iban.toLowerCase().replace(/(.{4})/g, '$1 '))?.name).toBe('unknown');
    expect(
      testPayerByIban(testPayerRouting('late-confirm@dunes', { handle: 'dunes', institutionCode: '012' })!.iban)?.name,
    ).toBe('late-confirm');
    expect(testPayerByIban(newLyIban('011'))).toBeNull();
    expect(testPayerByIban('not an iban')).toBeNull();
  });
});
