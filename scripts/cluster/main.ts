/**
 * `npm run start:cluster -- --replicas 2 [--port 8080]`: the scaled-out layout on this machine
 * (scripts/cluster/cluster.ts): HAProxy in front of `replicas` instances of every service, on the
 * PostgreSQL of DATABASE_URL and the RabbitMQ of AMQP_URL, the demo seeded (SANDBOX_BANKS=off: none).
 * Prints the one public address; Ctrl-C or SIGTERM stops everything.
 *
 * CLUSTER_DATA_DIR (.data/cluster): haproxy.cfg, secrets.json (unless ADMIN_KEY and PLATFORM_SECRET
 * are given) and demo.json. SANDBOX_PORT_BASE (7101): the demo banks' first port. HOST (127.0.0.1):
 * where the public address listens.
 */
import { parseArgs } from 'node:util';
import { join, resolve } from 'node:path';
import { envFlag, envPort, loadConfig, z } from '@gateway/kernel';
import { resolveSecrets, tryItBlock } from '@gateway/platform';
import { startCluster, type Cluster } from './cluster';

const USAGE =
  'usage: DATABASE_URL=postgresql://… AMQP_URL=amqp://… npm run start:cluster -- [--replicas 2] [--port 8080]';

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { replicas: { type: 'string', default: '2' }, port: { type: 'string', default: '8080' } },
  });
  const missing = ['DATABASE_URL', 'AMQP_URL'].filter((name) => !process.env[name]);
  if (missing.length > 0)
    throw new Error(
      `${missing.join(' and ')} not set: every instance shares one PostgreSQL (DATABASE_URL), and events, webhooks and subscriptions cross instances through RabbitMQ (AMQP_URL); the embedded database and in-process bus of npm start cannot be shared.\n${USAGE}`,
    );
  const env = loadConfig(
    z.object({
      DATABASE_URL: z.string().min(1, 'required: every instance shares one PostgreSQL'),
      AMQP_URL: z.string().min(1, 'required: events, webhooks and subscriptions cross instances through RabbitMQ'),
      ADMIN_KEY: z.string().min(24).optional(),
      PLATFORM_SECRET: z.string().min(32).optional(),
      CLUSTER_DATA_DIR: z.string().default('.data/cluster'),
      SANDBOX_BANKS: envFlag.default(true),
      SANDBOX_PORT_BASE: envPort.default(7101),
      HOST: z.string().default('127.0.0.1'),
      LOG_LEVEL: z.string().default('warn'),
    }),
  );
  const replicas = Number(values.replicas);
  const port = Number(values.port);
  if (!Number.isInteger(replicas) || replicas < 1 || replicas > 8)
    throw new Error(`--replicas: a whole number from 1 to 8\n${USAGE}`);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port: a port number\n${USAGE}`);
  const dataDir = resolve(env.CLUSTER_DATA_DIR);
  const secrets = resolveSecrets(dataDir, { adminKey: env.ADMIN_KEY, platformSecret: env.PLATFORM_SECRET }, false);

  const began = Date.now();
  console.log(
    `starting ${replicas} instance(s) of banks, identity, payments, open-banking, router and rest-compat behind HAProxy...`,
  );
  let stopping = false;
  const starting = startCluster({
    replicas,
    databaseUrl: env.DATABASE_URL,
    amqpUrl: env.AMQP_URL,
    platformSecret: secrets.platformSecret,
    adminKey: secrets.adminKey,
    dataDir,
    publicPort: port,
    host: env.HOST,
    env: { LOG_LEVEL: env.LOG_LEVEL },
    ...(env.SANDBOX_BANKS ? { demo: { sandboxPortBase: env.SANDBOX_PORT_BASE } } : {}),
  });
  // A signal during the start waits for it to end (or fail), so no instance is left behind.
  const stop = async (signal: string) => {
    if (stopping) return console.error(`${signal} again: still stopping (every instance drains, then exits)`);
    stopping = true;
    console.log(`${signal}: stopping the cluster...`);
    const started = await starting.catch(() => undefined);
    await started?.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop('SIGINT'));
  process.on('SIGTERM', () => void stop('SIGTERM'));
  const cluster: Cluster = await starting;
  if (stopping) return;
  const seconds = ((Date.now() - began) / 1000).toFixed(1);
  console.log(
    [
      '',
      `Payment gateway cluster is running (started in ${seconds} s)`,
      `  Public address  ${cluster.publicUrl}   (REST, OpenAPI docs at /docs, GraphQL at /graphql)`,
      `  Admin key       ${env.ADMIN_KEY ? '(from ADMIN_KEY)' : secrets.adminKey}   (header X-Service-Admin-Key)`,
      `  HAProxy         ${join(dataDir, 'haproxy.cfg')}, server states at ${cluster.haproxy.statsUrl}`,
      `  Instances       ${cluster.layout.instances.map((instance) => `${instance.name} :${instance.spec.port}`).join(', ')}`,
      '',
      ...(cluster.banks?.ready.demo ? [tryItBlock(cluster.banks.ready.demo, cluster.banks.ready.demoFile!)] : []),
      'Ctrl-C stops every instance (each drains first).',
    ].join('\n'),
  );
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
