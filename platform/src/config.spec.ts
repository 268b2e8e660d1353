import { loadPlatformConfig, loadStartConfig } from './config';

describe('platform environment', () => {
  it("passes each service's own variables to it: payments' and open-banking's", () => {
    const config = loadPlatformConfig({ SESSION_TTL_SECONDS: '600', SCA_TTL_SECONDS: '60' });
    expect(config.payments.sessionTtlSeconds).toBe(600);
    expect(config.openBanking).toEqual({ scaTtlMs: 60_000, webhookPrivateTargets: false, maxCoreCallsPerRequest: 10 });
    expect(loadPlatformConfig({ OB_MAX_CORE_CALLS_PER_REQUEST: '3' }).openBanking).toEqual({
      scaTtlMs: 900_000,
      webhookPrivateTargets: false,
      maxCoreCallsPerRequest: 3,
    });
  });

  it('passes INTERNAL_KEY_GRACE_SECONDS to the banks service: a day by default, 0 allowed, a negative refused', () => {
    expect(loadPlatformConfig({}).banks).toEqual({ internalKeyGraceSeconds: 86_400, privateTargets: false });
    expect(loadPlatformConfig({ INTERNAL_KEY_GRACE_SECONDS: '0' }).banks).toEqual({
      internalKeyGraceSeconds: 0,
      privateTargets: false,
    });
    expect(() => loadPlatformConfig({ INTERNAL_KEY_GRACE_SECONDS: '-1' })).toThrow(/INTERNAL_KEY_GRACE_SECONDS/);
  });

  it('calls webhooks and bank cores on public addresses only unless PRIVATE_TARGETS; npm start opens private ones for its demo, unless told otherwise', () => {
    const opened = (config: ReturnType<typeof loadPlatformConfig>) => [
      config.payments.webhookPrivateTargets,
      config.openBanking.webhookPrivateTargets,
      config.banks.privateTargets,
    ];
    expect(opened(loadPlatformConfig({}))).toEqual([false, false, false]);
    expect(opened(loadPlatformConfig({ PRIVATE_TARGETS: '1' }))).toEqual([true, true, true]);
    // The former name is still read, and the new one wins.
    expect(opened(loadPlatformConfig({ WEBHOOK_PRIVATE_TARGETS: '1' }))).toEqual([true, true, true]);
    expect(opened(loadPlatformConfig({ WEBHOOK_PRIVATE_TARGETS: '1', PRIVATE_TARGETS: '0' }))).toEqual([
      false,
      false,
      false,
    ]);
    // Embedded: the demo runs, its sandbox banks and webhook receiver on loopback.
    expect(opened(loadStartConfig({}))).toEqual([true, true, true]);
    expect(opened(loadStartConfig({ PRIVATE_TARGETS: '0' }))).toEqual([false, false, false]);
    expect(opened(loadStartConfig({ WEBHOOK_PRIVATE_TARGETS: '0' }))).toEqual([false, false, false]);
    expect(opened(loadStartConfig({ SANDBOX_BANKS: 'off' }))).toEqual([false, false, false]);
    expect(() => loadPlatformConfig({ PRIVATE_TARGETS: 'sometimes' })).toThrow(/PRIVATE_TARGETS/);
    expect(() => loadPlatformConfig({ WEBHOOK_PRIVATE_TARGETS: 'sometimes' })).toThrow(/WEBHOOK_PRIVATE_TARGETS/);
  });

  it('reports a bad SCA time with the rest of the problems', () => {
    expect(() => loadPlatformConfig({ SCA_TTL_SECONDS: '0', REST_PORT: 'x' })).toThrow(
      /REST_PORT[\s\S]*SCA_TTL_SECONDS|SCA_TTL_SECONDS[\s\S]*REST_PORT/,
    );
  });

  it("passes the router's SUBSCRIPTION_MAX_LIFETIME_SECONDS (default a day); below a second is refused", () => {
    expect(loadPlatformConfig({}).subscriptionMaxLifetimeSeconds).toBe(86_400);
    expect(loadPlatformConfig({ SUBSCRIPTION_MAX_LIFETIME_SECONDS: '3600' }).subscriptionMaxLifetimeSeconds).toBe(3600);
    expect(() => loadPlatformConfig({ SUBSCRIPTION_MAX_LIFETIME_SECONDS: '0' })).toThrow(
      /SUBSCRIPTION_MAX_LIFETIME_SECONDS/,
    );
  });

  it('keeps limit counters in memory unless RATE_LIMIT_STORE=postgres; anything else is refused', () => {
    expect(loadPlatformConfig({}).sharedRateLimits).toBe(false);
    expect(loadPlatformConfig({ RATE_LIMIT_STORE: 'postgres' }).sharedRateLimits).toBe(true);
    expect(() => loadPlatformConfig({ RATE_LIMIT_STORE: 'redis' })).toThrow(/RATE_LIMIT_STORE/);
  });

  it('refuses production mode without METRICS_TOKEN, with the other secrets it requires', () => {
    const production = {
      NODE_ENV: 'production',
      ADMIN_KEY: 'a'.repeat(24),
      PLATFORM_SECRET: 's'.repeat(32),
      DATABASE_URL: 'postgresql://postgres@127.0.0.1/x',
      PUBLIC_BASE_URL: 'https://pay.example.com',
    };
    expect(() => loadPlatformConfig(production)).toThrow(/METRICS_TOKEN: required in production mode/);
    expect(loadPlatformConfig({ ...production, METRICS_TOKEN: 'metrics-token-0123456789abcdef' }).metricsToken).toBe(
      'metrics-token-0123456789abcdef',
    );
  });

  it('keeps the subgraphs on loopback whatever HOST opens, unless SUBGRAPH_HOST says otherwise', () => {
    expect(loadPlatformConfig({ HOST: '0.0.0.0' })).toMatchObject({ host: '0.0.0.0', subgraphHost: '127.0.0.1' });
    expect(loadPlatformConfig({ SUBGRAPH_HOST: '0.0.0.0' }).subgraphHost).toBe('0.0.0.0');
  });
});
