import { join } from 'node:path';
import { DataDirLockedError, EmbeddedDatabaseError } from '@gateway/db';
import { createLogger } from '@gateway/kernel';
import { loadPlatformConfig, type PlatformConfig } from './config';
import { startDemo, tryItBlock } from './demo/demo';
import { DemoSeedError } from './demo/demo-file';
import { startPlatform, type Platform } from './platform';

/** Failures whose message is the whole story for the user: no stack trace. */
const EXPLAINED = [DataDirLockedError, EmbeddedDatabaseError, DemoSeedError];

/**
 * `npm start`: the whole platform in one process on embedded defaults.
 *
 * Shutdown: the first SIGINT/SIGTERM stops the platform in order (not ready, servers, jobs,
 * pools, PGlite, the data directory's lock) and exits; further signals only say it is still
 * stopping. Without that, a second Ctrl-C used to kill the process in the middle of PGlite's
 * close. A signal during start lets the current step finish (the demo seed stops between
 * saved steps) and then stops the same way.
 */
void (async () => {
  const logger = createLogger('platform', process.env.LOG_LEVEL ?? 'warn');
  let config: PlatformConfig;
  try {
    config = loadPlatformConfig();
  } catch (error) {
    console.error((error as Error).message);
    process.exit(1);
  }

  const stopRequested = new AbortController();
  let platform: Platform | undefined;
  let running = false;
  let finishing: Promise<void> | undefined;
  const finish = (code: number) =>
    (finishing ??= (async () => {
      try {
        await platform?.stop();
      } catch (error) {
        console.error('stopping the platform failed:', error);
        code = 1;
      }
      process.exit(code);
    })());
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopRequested.signal.aborted) {
      console.error(`${signal} again: still stopping, the embedded database is being closed; this process exits by itself when it is done.`);
      return;
    }
    console.log(`${signal}: stopping...`);
    stopRequested.abort();
    if (running) void finish(0);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    platform = await startPlatform(config, { logger });
    stopRequested.signal.throwIfAborted();
    console.log(
      [
        '',
        'Payment gateway is running',
        `  REST API        ${platform.restUrl}   (OpenAPI docs: ${platform.restUrl}/docs)`,
        `  GraphQL         ${platform.graphqlUrl}   (also ${platform.restUrl}/graphql)`,
        `  Database        ${config.embedded ? `embedded PGlite in ${config.dataDir}/pglite` : 'PostgreSQL (DATABASE_URL)'}`,
        `  Admin key       ${config.adminKey ? '(from ADMIN_KEY)' : platform.adminKey}   (header X-Service-Admin-Key)`,
        '',
      ].join('\n'),
    );
    if (config.sandboxBanks) {
      const demo = await startDemo(platform, { portBase: config.sandboxPortBase, logger, signal: stopRequested.signal });
      platform.attach(demo);
      console.log(tryItBlock(demo.file, join(config.dataDir, 'demo.json')));
    }
    stopRequested.signal.throwIfAborted();
    running = true;
  } catch (error) {
    if (stopRequested.signal.aborted) return finish(0);
    if (EXPLAINED.some((kind) => error instanceof kind)) console.error((error as Error).message);
    else console.error('platform failed to start:', error);
    return finish(1);
  }
})();
