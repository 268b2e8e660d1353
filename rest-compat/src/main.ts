// First: tracing (only with OTEL_EXPORTER_OTLP_ENDPOINT) must be in place before any server or client exists.
import '@gateway/tracing/register';
import { createLogger, handleShutdownSignals } from '@gateway/kernel';
import { loadRestCompatConfig, type RestCompatConfig } from './config';
import { startRestCompat } from './server';

/** `npm run start:rest-compat`: rest-compat alone, in front of a router running elsewhere. */
let config: RestCompatConfig;
try {
  config = loadRestCompatConfig();
} catch (error) {
  // Every problem at once, without a stack: the operator has a configuration to fix, not a bug.
  console.error((error as Error).message);
  process.exit(1);
}

void (async () => {
  const logger = createLogger('rest-compat');
  // Not ready from the first SIGTERM on (the balancer drains this instance), then requests in flight end.
  const shutdown = handleShutdownSignals({
    logger,
    drainSeconds: config.drainSeconds,
    stop: async () => (await starting.catch(() => undefined))?.stop(),
  });
  const starting = startRestCompat({
    routerUrl: config.routerUrl,
    host: config.host,
    port: config.port,
    production: config.production,
    routerTimeoutMs: config.routerTimeoutMs,
    trustProxy: config.trustProxy,
    publicBaseUrl: config.publicBaseUrl,
    logger,
    readinessChecks: shutdown.readiness,
    metricsToken: config.metricsToken,
  });
  await starting;
})();
