import { camelToSnake, keysToCamel, keysToSnake, snakeToCamel } from './case';

describe('key case conversion', () => {
  it('converts names both ways', () => {
    expect(['bank_handle', 'ob_scopes_supported', 'iban', 'max_consent_expiry_days'].map(snakeToCamel)).toEqual([
      'bankHandle',
      'obScopesSupported',
      'iban',
      'maxConsentExpiryDays',
    ]);
    expect(['bankKey', 'tppAccessToken', 'iban', 'redirectUris'].map(camelToSnake)).toEqual([
      'bank_key',
      'tpp_access_token',
      'iban',
      'redirect_uris',
    ]);
  });

  it('converts nested keys, never values', () => {
    const rest = {
      bank_handle: 'first_bank',
      capabilities: { ob_scopes_supported: ['accounts:read'] },
      redirect_uris: ['https://a.example/cb?x_y=1'],
      webhook_url: null,
    };
    const graphql = keysToCamel(rest);
    expect(graphql).toEqual({
      bankHandle: 'first_bank',
      capabilities: { obScopesSupported: ['accounts:read'] },
      redirectUris: ['https://a.example/cb?x_y=1'],
      webhookUrl: null,
    });
    expect(keysToSnake(graphql)).toEqual(rest);
  });
});
