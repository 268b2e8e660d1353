import { loadRestCompatConfig } from './config';

const TOKEN = 'metrics-token-0123456789abcdef';

describe('rest-compat environment', () => {
  it('refuses production mode without METRICS_TOKEN; /metrics is open only outside production', () => {
    expect(() => loadRestCompatConfig({ NODE_ENV: 'production' })).toThrow(
      /METRICS_TOKEN: required in production mode/,
    );
    expect(loadRestCompatConfig({ NODE_ENV: 'production', METRICS_TOKEN: TOKEN })).toMatchObject({
      production: true,
      metricsToken: TOKEN,
    });
    expect(loadRestCompatConfig({}).metricsToken).toBeUndefined();
  });
});
