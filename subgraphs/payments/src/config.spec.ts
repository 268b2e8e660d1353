import { loadConfig } from '@gateway/kernel';
import { paymentsConfigFrom, paymentsEnvSchema } from './config';

const load = (env: Record<string, string>) => paymentsConfigFrom(loadConfig(paymentsEnvSchema, env));

describe('payments environment', () => {
  it('defaults: checkout on localhost:8080, 15-minute sessions, the built-in webhook schedule', () => {
    expect(load({})).toEqual({
      publicBaseUrl: 'http://localhost:8080',
      sessionTtlSeconds: 900,
      webhookRetryScheduleSeconds: undefined,
      settlementIntervalSeconds: 3600,
      webhookPrivateTargets: false,
    });
  });

  it('reads its own variables', () => {
    expect(
      load({
        PUBLIC_BASE_URL: 'https://pay.example.ly/',
        SESSION_TTL_SECONDS: '600',
        WEBHOOK_RETRY_SCHEDULE: '5, 30,0.5',
        SETTLEMENT_INTERVAL_SECONDS: '0',
        PRIVATE_TARGETS: '1',
      }),
    ).toEqual({
      publicBaseUrl: 'https://pay.example.ly',
      sessionTtlSeconds: 600,
      webhookRetryScheduleSeconds: [5, 30, 0.5],
      settlementIntervalSeconds: 0,
      webhookPrivateTargets: true,
    });
  });

  it('still reads WEBHOOK_PRIVATE_TARGETS, the former name, when PRIVATE_TARGETS is not set', () => {
    expect(load({ WEBHOOK_PRIVATE_TARGETS: '1' }).webhookPrivateTargets).toBe(true);
    expect(load({ WEBHOOK_PRIVATE_TARGETS: '1', PRIVATE_TARGETS: '0' }).webhookPrivateTargets).toBe(false);
  });

  it('reports every problem at once', () => {
    expect(() =>
      load({
        PUBLIC_BASE_URL: 'not a url',
        SESSION_TTL_SECONDS: '5',
        WEBHOOK_RETRY_SCHEDULE: '5,x',
        SETTLEMENT_INTERVAL_SECONDS: '-1',
      }),
    ).toThrow(
      /PUBLIC_BASE_URL[\s\S]*SESSION_TTL_SECONDS[\s\S]*WEBHOOK_RETRY_SCHEDULE[\s\S]*SETTLEMENT_INTERVAL_SECONDS/,
    );
  });
});
