import { join } from 'node:path';
import { newSecret } from '@gateway/kernel';
import { SplitLayout } from '../../scripts/launcher/split-layout';
import type { LaunchedPlatform } from './launcher';

/**
 * Every service in its own process (`npm run start:<service>`), as a scaled-out deployment runs
 * them, on the PostgreSQL of DATABASE_URL (scripts/launcher, one instance of each).
 */
export async function launchSplitPlatform(env: Record<string, string> = {}): Promise<LaunchedPlatform> {
  const databaseUrl = process.env.DATABASE_URL;
  if (!databaseUrl) throw new Error('the split layout needs DATABASE_URL (PostgreSQL shared by the processes)');
  const adminKey = newSecret('adm_');
  const platformSecret = newSecret('pls_');
  const { RATE_LIMITS, ...own } = env;
  const common = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    DATABASE_URL: databaseUrl,
    PLATFORM_SECRET: platformSecret,
    ADMIN_KEY: adminKey,
    LOG_LEVEL: 'error',
    // Processes share events over RabbitMQ when the run has it, as a deployment does.
    ...(process.env.AMQP_URL ? { AMQP_URL: process.env.AMQP_URL } : {}),
    // No balancer to drain: a stop need not wait.
    SHUTDOWN_DRAIN_SECONDS: '0',
    // The bench's banks and webhook receivers listen on loopback.
    PRIVATE_TARGETS: '1',
    ...own,
  };
  // BENCH_PROFILE=<dir>: the router writes a CPU profile there when it stops (as launcher.ts does for the platform).
  const profile: Record<string, string> = process.env.BENCH_PROFILE
    ? {
        NODE_OPTIONS: `--require ${join(__dirname, 'cpu-profile.js')}`,
        BENCH_PROFILE_DIR: process.env.BENCH_PROFILE,
      }
    : {};
  const layout = await SplitLayout.plan({
    common,
    env: { router: RATE_LIMITS ? { RATE_LIMITS, ...profile } : profile },
  });
  await layout.start();
  const port = (service: 'rest-compat' | 'router' | 'banks' | 'identity' | 'payments' | 'open-banking') =>
    layout.ports[service][0]!;
  return {
    restUrl: `http://127.0.0.1:${port('rest-compat')}`,
    routerUrl: `http://127.0.0.1:${port('router')}`,
    adminKey,
    platformSecret,
    ports: {
      rest: port('rest-compat'),
      router: port('router'),
      banks: port('banks'),
      identity: port('identity'),
      payments: port('payments'),
      'open-banking': port('open-banking'),
    },
    split: { layout, common },
    stop: () => layout.stop(),
  };
}
