// First: tracing (only with OTEL_EXPORTER_OTLP_ENDPOINT) must be in place before any server or client exists.
import '@gateway/tracing/register';
import { join } from 'node:path';
import { DataDirLockedError, EmbeddedDatabaseError } from '@gateway/db';
import { createLogger } from '@gateway/kernel';
import { loadStartConfig, type PlatformConfig } from './config';
import { startDemo, tryItBlock } from './demo/demo';
import { DemoSeedError } from './demo/demo-file';
import { startPlatform, startStep, type Platform } from './platform';
import { PortInUseError } from './ports';

/** Failures whose message is the whole story for the user: no stack trace. */
const EXPLAINED = [DataDirLockedError, EmbeddedDatabaseError, DemoSeedError, PortInUseError];

/**
 * `npm start`: the whole platform in one process on embedded defaults.
 *
 * Shutdown: the first SIGINT/SIGTERM stops the platform in order (not ready, servers, jobs,
 * pools, PGlite, the data directory's lock) and exits; further signals only say it is still
 * stopping. Without that, a second Ctrl-C used to kill the process in the middle of PGlite's
 * close. A signal during start lets the current step finish (the demo seed stops between
 * saved steps) and then stops the same way.
 *
 * Output: stdout carries JSON log lines only (pino), for whatever collects them: start-up progress
 * (database, migrations, composition, seeding, ready) at info, the services' own lines at LOG_LEVEL
 * (default warn). The human banner (addresses, the generated admin key, the demo's keys and a curl
 * to try) goes to stderr, so a terminal shows both and a log pipeline reading stdout never sees
 * a plain-text line or a secret; so do the messages of a start that failed or a stop under way.
 */
void (async () => {
  const logger = createLogger('platform', process.env.LOG_LEVEL ?? 'warn');
  const progress = createLogger('platform', process.env.LOG_LEVEL ?? 'info');
  const human = (text: string) => process.stderr.write(`${text}\n`);
  let config: PlatformConfig;
  try {
    config = loadStartConfig();
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
      console.error(
        `${signal} again: still stopping, the embedded database is being closed; this process exits by itself when it is done.`,
      );
      return;
    }
    progress.info({ signal }, 'stopping');
    stopRequested.abort();
    if (running) void finish(0);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);

  try {
    platform = await startPlatform(config, { logger, progress });
    stopRequested.signal.throwIfAborted();
    human(
      [
        '',
        'Payment gateway is running',
        ...(config.production
          ? []
          : [
              `  Start page      ${platform.restUrl}/   (links, GraphiQL, the merchant dashboard, a one-click demo payment)`,
            ]),
        `  REST API        ${platform.restUrl}   (OpenAPI docs: ${platform.restUrl}/docs)`,
        `  GraphQL         ${platform.graphqlUrl}   (also ${platform.restUrl}/graphql; GraphiQL in a browser)`,
        `  Database        ${config.embedded ? `embedded PGlite in ${config.dataDir}/pglite` : 'PostgreSQL (DATABASE_URL)'}`,
        `  Admin key       ${config.adminKey ? '(from ADMIN_KEY)' : platform.adminKey}   (header X-Service-Admin-Key)`,
        '',
      ].join('\n'),
    );
    if (config.sandboxBanks) {
      const started = platform;
      const demo = await startStep(progress, 'seeding', 'sandbox banks and demo data', () =>
        startDemo(started, {
          portBase: config.sandboxPortBase,
          logger,
          progress,
          signal: stopRequested.signal,
          onStep: (item) => progress.info({ step: 'seeding', item }, `seeded ${item}`),
        }),
      );
      platform.attach(demo);
      human(tryItBlock(demo.file, join(config.dataDir, 'demo.json')));
    }
    stopRequested.signal.throwIfAborted();
    running = true;
    progress.info(
      {
        step: 'ready',
        rest_url: platform.restUrl,
        graphql_url: platform.graphqlUrl,
        docs_url: `${platform.restUrl}/docs`,
        start_page: `${platform.restUrl}/`,
      },
      'payment gateway ready',
    );
  } catch (error) {
    if (stopRequested.signal.aborted) return finish(0);
    if (EXPLAINED.some((kind) => error instanceof kind)) console.error((error as Error).message);
    else console.error('platform failed to start:', error);
    return finish(1);
  }
})();
