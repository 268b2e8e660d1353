import { mkdirSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * Real Postgres (PGlite, WASM) for embedded mode, served on a loopback port so MikroORM's own
 * postgres driver talks to it over the wire protocol. Data lives in `dataDir` across restarts;
 * `dataDir: undefined` keeps it in memory (tests).
 */
export async function startEmbeddedPostgres(dataDir?: string): Promise<EmbeddedPostgres> {
  if (dataDir) mkdirSync(dataDir, { recursive: true });
  const db = await PGlite.create(dataDir ? { dataDir } : {});
  // A few connections so that a pool check-out never waits on a closed socket; the
  // multiplexer serialises transactions, and the process-wide pool (see database.ts) keeps
  // one statement sequence at a time on the wire.
  const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 4 });
  await server.start();
  const address = server.getServerConn();
  return {
    url: `postgresql://postgres@${address}/postgres?sslmode=disable`,
    async stop() {
      await server.stop();
      await db.close();
    },
  };
}
