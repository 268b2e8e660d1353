import { loadConfig } from '@gateway/kernel';
import { openBankingEnv } from './config';

const load = (env: Record<string, string>) => openBankingEnv.options(loadConfig(openBankingEnv.schema, env));

describe('open-banking environment', () => {
  it('defaults: consent pages on localhost:8080, 15 minutes for SCA', () => {
    expect(load({})).toEqual({
      publicBaseUrl: 'http://localhost:8080',
      scaTtlMs: 900_000,
      webhookPrivateTargets: false,
      maxCoreCallsPerRequest: 10,
    });
  });

  it('reads its own variables', () => {
    expect(
      load({
        PUBLIC_BASE_URL: 'https://pay.example.ly/',
        SCA_TTL_SECONDS: '120',
        PRIVATE_TARGETS: 'on',
        OB_MAX_CORE_CALLS_PER_REQUEST: '25',
      }),
    ).toEqual({
      publicBaseUrl: 'https://pay.example.ly',
      scaTtlMs: 120_000,
      webhookPrivateTargets: true,
      maxCoreCallsPerRequest: 25,
    });
  });

  it('reads the directory keys of dynamic registration (OB_DIRECTORY_JWKS) as a public JWK Set, or refuses them', () => {
    const key = { kty: 'OKP', crv: 'Ed25519', kid: 'dir-1', x: '11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo' };
    expect(load({ OB_DIRECTORY_JWKS: JSON.stringify({ keys: [key] }) }).directoryJwks).toEqual({ keys: [key] });
    expect(load({ OB_DIRECTORY_JWKS: '' }).directoryJwks).toBeUndefined();
    expect(() => load({ OB_DIRECTORY_JWKS: '{not json' })).toThrow(/OB_DIRECTORY_JWKS: must be a JSON JWK Set/);
    expect(() => load({ OB_DIRECTORY_JWKS: JSON.stringify({ keys: [{ ...key, d: 'x' }] }) })).toThrow(
      /OB_DIRECTORY_JWKS: keys\.0\.d: private key material/,
    );
  });

  it('refuses an SCA time that is not a whole number of seconds from 1 to a day', () => {
    for (const bad of ['0', '-5', '1.5', 'soon', '86401'])
      expect(() => load({ SCA_TTL_SECONDS: bad })).toThrow(/SCA_TTL_SECONDS/);
  });

  it('refuses a core-call cap that is not a whole number from 1 to 1000', () => {
    for (const bad of ['0', '2.5', 'many', '1001'])
      expect(() => load({ OB_MAX_CORE_CALLS_PER_REQUEST: bad })).toThrow(/OB_MAX_CORE_CALLS_PER_REQUEST/);
  });
});
