import { serviceNameOf, tracingWanted } from './index';

describe('tracing switch', () => {
  it('is on only with one of the standard OTLP endpoint variables', () => {
    expect(tracingWanted({})).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: '' })).toBe(false);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318' })).toBe(true);
    expect(tracingWanted({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://127.0.0.1:4318/v1/traces' })).toBe(true);
  });

  it('names the service after OTEL_SERVICE_NAME, or the workspace of the main script', () => {
    expect(serviceNameOf('/repo/subgraphs/payments/src/main.ts', {})).toBe('payments');
    expect(serviceNameOf('/repo/platform/src/main.ts', {})).toBe('platform');
    expect(serviceNameOf('/repo/router/src/main.ts', { OTEL_SERVICE_NAME: 'router-eu-1' })).toBe('router-eu-1');
  });
});
