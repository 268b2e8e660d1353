import { loadPlatformConfig } from './config';

describe('platform environment', () => {
  it("passes each service's own variables to it: payments' and open-banking's", () => {
    const config = loadPlatformConfig({ SESSION_TTL_SECONDS: '600', SCA_TTL_SECONDS: '60' });
    expect(config.payments.sessionTtlSeconds).toBe(600);
    expect(config.openBanking).toEqual({ scaTtlMs: 60_000 });
    expect(loadPlatformConfig({}).openBanking).toEqual({ scaTtlMs: 900_000 });
  });

  it('reports a bad SCA time with the rest of the problems', () => {
    expect(() => loadPlatformConfig({ SCA_TTL_SECONDS: '0', REST_PORT: 'x' })).toThrow(/REST_PORT[\s\S]*SCA_TTL_SECONDS|SCA_TTL_SECONDS[\s\S]*REST_PORT/);
  });

  it('keeps limit counters in memory unless RATE_LIMIT_STORE=postgres; anything else is refused', () => {
    expect(loadPlatformConfig({}).sharedRateLimits).toBe(false);
    expect(loadPlatformConfig({ RATE_LIMIT_STORE: 'postgres' }).sharedRateLimits).toBe(true);
    expect(() => loadPlatformConfig({ RATE_LIMIT_STORE: 'redis' })).toThrow(/RATE_LIMIT_STORE/);
  });
});
