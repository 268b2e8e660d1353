import { GatewayError, parseInput } from '@gateway/kernel';
import { createSessionRules } from './session.rules';

const valid = { amount: 12_500, currency: 'LYD', destination: { type: 'alias', value: 'amina' } };
const problem = (production: boolean, patch: Record<string, unknown>): string | undefined => {
  try {
    parseInput(createSessionRules({ production, privateTargets: false }), { ...valid, ...patch });
    return undefined;
  } catch (error) {
    return (error as GatewayError).detail;
  }
};

describe('payment session request rules', () => {
  it('accepts a minimal request and normalises an IBAN destination', () => {
    expect(problem(false, {})).toBeUndefined();
    const parsed = parseInput(createSessionRules({ production: false, privateTargets: false }), {
      ...valid,
      destination: { type: 'iban', value: 'ly83 0020 4800 0020 1001 2036 1' },
    });
    expect(parsed.destination).toEqual({
      type: 'iban',
      value: { iban: 'LY83002048000020100120361', countryCode: 'LY', institutionCode: '002' },
    });
  });

  it.each([
    [{ amount: 0 }, /^amount: /],
    [{ amount: -1 }, /^amount: /],
    [{ amount: 1.5 }, /^amount: /],
    [{ amount: Number.MAX_SAFE_INTEGER + 1 }, /^amount: /],
    [{ currency: 'GBP' }, /^currency: must be one of LYD, USD, EUR/],
    [{ destination: { type: 'phone', value: '+218912345678' } }, /^destination/],
    [{ destination: { type: 'alias', value: 'a b' } }, /^destination\.value: /],
    [{ destination: { type: 'iban', value: 'LY84002048000020100120361' } }, /^destination\.value: not a valid IBAN/],
    [{ reference: 'r'.repeat(129) }, /^reference: must be at most 128 characters/],
    [{ reference: '   ' }, /^reference: must not be empty/],
    [{ description: 'd'.repeat(501) }, /^description: must be at most 500 characters/],
    [{ redirectUrl: 'ftp://shop.example/back' }, /^redirect_url: /],
    [{ redirectUrl: 'not a url' }, /^redirect_url: /],
    [{ webhookUrl: 'javascript:alert(1)' }, /^webhook_url: /],
    [{ extra: 1 }, /^body: |extra/],
  ])('refuses %j', (patch, detail) => {
    expect(problem(false, patch)).toMatch(detail);
  });

  it('requires https URLs in production mode only, and public webhook hosts in every mode unless PRIVATE_TARGETS', () => {
    expect(
      problem(false, { redirectUrl: 'http://shop.example/back', webhookUrl: 'http://hooks.example.com/x' }),
    ).toBeUndefined();
    expect(problem(false, { webhookUrl: 'http://127.0.0.1:9000/hooks' })).toMatch(
      /^webhook_url: must point to a public address/,
    );
    expect(
      parseInput(createSessionRules({ production: false, privateTargets: true }), {
        ...valid,
        webhookUrl: 'http://127.0.0.1:9000/hooks',
      }).webhookUrl,
    ).toBe('http://127.0.0.1:9000/hooks');
    expect(problem(true, { redirectUrl: 'http://shop.example/back' })).toBe('redirect_url: must be an https URL');
    expect(problem(true, { webhookUrl: 'http://hooks.example.com/x' })).toBe('webhook_url: must be an https URL');
    expect(problem(true, { webhookUrl: 'https://10.0.0.1/x' })).toMatch(/^webhook_url: must point to a public address/);
    expect(
      problem(true, { redirectUrl: 'https://shop.example/back', webhookUrl: 'https://hooks.example.com/x' }),
    ).toBeUndefined();
  });
});
