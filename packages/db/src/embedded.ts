import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { lockDataDir, type DataDirLock } from './data-dir-lock';

export interface EmbeddedPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * PGlite could not open its files (a corrupted directory: typically two processes wrote it at
 * once, before the lock existed, or a disk problem). PGlite itself only says
 * `RuntimeError: Aborted()`; this says what happened and what to do.
 */
export class EmbeddedDatabaseError extends Error {
  constructor(
    readonly dir: string,
    readonly reason: string,
  ) {
    super(
      `The embedded database in ${dir} could not be opened: ${reason}. ` +
        'If another platform was running on it, stop it and start again; ' +
        `to start afresh, move ${dir} aside (its data stays there for a later look) and start again.`,
    );
    this.name = 'EmbeddedDatabaseError';
  }
}

/**
 * Real Postgres (PGlite, WASM) for embedded mode, served on a loopback port so MikroORM's own
 * postgres driver talks to it over the wire protocol. Data lives in `dataDir` across restarts,
 * held by one process at a time (data-dir-lock.ts); `dataDir: undefined` keeps it in memory (tests).
 */
export async function startEmbeddedPostgres(dataDir?: string): Promise<EmbeddedPostgres> {
  const lock: DataDirLock | undefined = dataDir ? lockDataDir(dataDir) : undefined;
  let db: PGlite;
  try {
    db = await PGlite.create(dataDir ? { dataDir } : {});
  } catch (error) {
    lock?.release();
    const reason = error instanceof Error ? error.message.replace(/\.? Build with -sASSERTIONS.*$/, '') : String(error);
    throw new EmbeddedDatabaseError(dataDir ?? '(memory)', reason);
  }
  // A few connections so that a pool check-out never waits on a closed socket; the
  // multiplexer serialises transactions, and the process-wide pool (see database.ts) keeps
  // one statement sequence at a time on the wire.
  const server = new PGLiteSocketServer({ db, port: 0, host: '127.0.0.1', maxConnections: 4 });
  try {
    await server.start();
  } catch (error) {
    await db.close().catch(() => undefined);
    lock?.release();
    throw error;
  }
  const address = server.getServerConn();
  let stopped: Promise<void> | undefined;
  return {
    url: `postgresql://postgres@${address}/postgres?sslmode=disable`,
    // Once only: a second signal or a second caller waits for the same close. The lock goes
    // last, after PGlite has written and closed its files.
    stop: () =>
      (stopped ??= (async () => {
        try {
          await server.stop();
          await db.close();
        } finally {
          lock?.release();
        }
      })()),
  };
}
