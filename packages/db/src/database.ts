import { knex, type Knex } from '@mikro-orm/knex';
import { startEmbeddedPostgres, type EmbeddedPostgres } from './embedded';
import { countPool } from './pool-stats';
import { prepareParameterizedStatements } from './prepared-statements';

/**
 * One connection pool per process. Services started in the same process (the embedded
 * launcher, the tests) share it, so PGlite sees a single client at a time; against a real
 * PostgreSQL each standalone service opens its own.
 */
export interface Database {
  readonly url: string;
  readonly embedded: boolean;
  readonly knex: Knex;
  close(): Promise<void>;
}

/** Connections per process against PostgreSQL unless told otherwise (the platform's; bench/payments.ts measures a bare INSERT on a pool of this size). */
export const DEFAULT_POOL_SIZE = 10;

export interface OpenDatabaseOptions {
  /** PostgreSQL connection string; unset starts embedded PGlite. */
  url?: string;
  /** Embedded mode: where PGlite keeps its files; unset keeps them in memory. */
  dataDir?: string;
  /** Pool size against PostgreSQL. */
  poolSize?: number;
}

export async function openDatabase(options: OpenDatabaseOptions = {}): Promise<Database> {
  let embedded: EmbeddedPostgres | undefined;
  const url = options.url ?? (embedded = await startEmbeddedPostgres(options.dataDir)).url;
  // PGlite is single-session: a pool of one keeps each transaction's statements together.
  const size = embedded ? { min: 0, max: 1 } : { min: 0, max: options.poolSize ?? DEFAULT_POOL_SIZE };
  const pool = {
    ...size,
    afterCreate: (connection: Parameters<typeof prepareParameterizedStatements>[0], done: (error?: Error) => void) => {
      prepareParameterizedStatements(connection);
      done();
    },
  };
  const client = knex({ client: 'pg', connection: { connectionString: url }, pool, acquireConnectionTimeout: 30_000 });
  const uncount = countPool(client);
  let closed: Promise<void> | undefined;
  return {
    url,
    embedded: Boolean(embedded),
    knex: client,
    // The pool first (no statement in flight), then PGlite; once, whoever asks twice.
    close: () =>
      (closed ??= (async () => {
        uncount();
        try {
          await client.destroy();
        } finally {
          await embedded?.stop();
        }
      })()),
  };
}
