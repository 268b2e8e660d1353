import { createLogger } from '@gateway/kernel';
import { loadPlatformConfig } from './config';
import { startDemo, tryItBlock } from './demo/demo';
import { startPlatform } from './platform';

/** `npm start`: the whole platform in one process on embedded defaults. */
void (async () => {
  const logger = createLogger('platform', process.env.LOG_LEVEL ?? 'warn');
  let config;
  try {
    config = loadPlatformConfig();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }
  const platform = await startPlatform(config, { logger });
  const lines = [
    '',
    'Payment gateway is running',
    `  REST API        ${platform.restUrl}   (OpenAPI docs: ${platform.restUrl}/docs)`,
    `  GraphQL         ${platform.graphqlUrl}   (also ${platform.restUrl}/graphql)`,
    `  Database        ${config.embedded ? `embedded PGlite in ${config.dataDir}/pglite` : 'PostgreSQL (DATABASE_URL)'}`,
    `  Admin key       ${config.adminKey ? '(from ADMIN_KEY)' : platform.adminKey}   (header X-Service-Admin-Key)`,
    '',
  ];
  console.log(lines.join('\n'));
  const demo = config.sandboxBanks ? await startDemo(platform, { portBase: config.sandboxPortBase, logger }) : undefined;
  if (demo) console.log(tryItBlock(demo.file));
  const shutdown = async () => {
    await demo?.stop();
    await platform.stop();
    process.exit(0);
  };
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
})().catch((error) => {
  console.error('platform failed to start:', error);
  process.exit(1);
});
