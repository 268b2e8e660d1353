import { createLogger } from '@gateway/kernel';
import { loadRestCompatConfig } from './config';
import { startRestCompat } from './server';

/** `npm run start:rest-compat`: rest-compat alone, in front of a router running elsewhere. */
const config = loadRestCompatConfig();

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
