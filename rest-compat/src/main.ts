import { createLogger } from '@gateway/kernel';
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
  const rest = await startRestCompat({
    routerUrl: config.routerUrl,
    host: config.host,
    port: config.port,
    production: config.production,
    routerTimeoutMs: config.routerTimeoutMs,
    trustProxy: config.trustProxy,
    logger: createLogger('rest-compat'),
  });
  const shutdown = async () => {
    await rest.stop();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
})();
