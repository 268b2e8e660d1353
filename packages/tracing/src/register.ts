import { serviceNameOf, startTracing } from './index';

/**
 * `import '@gateway/tracing/register'` as the first line of a main: tracing when
 * OTEL_EXPORTER_OTLP_ENDPOINT is set, nothing at all otherwise.
 */
startTracing(serviceNameOf(require.main?.filename));
