/**
 * Runs one sandbox bank on its own:
 *   npm run start:bank-sandbox -- --handle bank1 --institution-code 001 --port 7001
 * Environment: DATABASE_URL (unset: embedded PGlite under .data/bank-sandbox-<handle>),
 * INTERNAL_KEY (unset outside production: generated and printed), GATEWAY_URL, BANK_KEY.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createLogger, envPort, isProduction, loadConfig, newSecret, z } from '@gateway/kernel';
import { openDatabase } from '@gateway/db';
import { startSandboxBank } from './sandbox-bank';

const { values: args } = parseArgs({
  options: {
    handle: { type: 'string', default: 'bank1' },
    'institution-code': { type: 'string', default: '001' },
    port: { type: 'string', default: '7001' },
    host: { type: 'string', default: '127.0.0.1' },
  },
  strict: true,
});

const config = loadConfig(
  z
    .object({
      DATABASE_URL: z.string().min(1).optional(),
      INTERNAL_KEY: z.string().min(16).optional(),
      GATEWAY_URL: z.url().optional(),
      BANK_KEY: z.string().min(1).optional(),
      NODE_ENV: z.string().optional(),
    })
    .refine((env) => !isProduction(env as Record<string, string | undefined>) || env.INTERNAL_KEY, {
      message: 'INTERNAL_KEY is required in production',
      path: ['INTERNAL_KEY'],
    }),
);

async function main(): Promise<void> {
  const handle = args.handle!;
  const port = envPort.parse(args.port);
  const logger = createLogger(`bank-sandbox:${handle}`);
  const db = await openDatabase({
    ...(config.DATABASE_URL
      ? { url: config.DATABASE_URL }
      : { dataDir: join(process.cwd(), '.data', `bank-sandbox-${handle}`) }),
  });
  const generatedKey = config.INTERNAL_KEY ? undefined : newSecret('sik_');
  const bank = await startSandboxBank({
    handle,
    institutionCode: args['institution-code']!,
    internalKey: config.INTERNAL_KEY ?? generatedKey!,
    db,
    host: args.host!,
    port,
    ...(config.GATEWAY_URL ? { gatewayUrl: config.GATEWAY_URL } : {}),
    ...(config.BANK_KEY ? { bankKey: config.BANK_KEY } : {}),
    logger,
  });
  process.stdout.write(`sandbox bank ${bank.handle} (institution ${bank.institutionCode}) listening on ${bank.url}\n`);
  if (generatedKey) process.stdout.write(`generated X-Service-Internal-Key (dev only): ${generatedKey}\n`);

  const shutdown = async (): Promise<void> => {
    await bank.stop();
    await db.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void shutdown());
  process.once('SIGTERM', () => void shutdown());
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
