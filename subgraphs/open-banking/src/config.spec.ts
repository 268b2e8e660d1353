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

  it('refuses an SCA time that is not a whole number of seconds from 1 to a day', () => {
    for (const bad of ['0', '-5', '1.5', 'soon', '86401'])
      expect(() => load({ SCA_TTL_SECONDS: bad })).toThrow(/SCA_TTL_SECONDS/);
  });

  it('refuses a core-call cap that is not a whole number from 1 to 1000', () => {
    for (const bad of ['0', '2.5', 'many', '1001'])
      expect(() => load({ OB_MAX_CORE_CALLS_PER_REQUEST: bad })).toThrow(/OB_MAX_CORE_CALLS_PER_REQUEST/);
  });
});
