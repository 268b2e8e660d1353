import { fork } from 'node:child_process';
import { join } from 'node:path';
import { DEFAULT_POOL_SIZE, openDatabase } from '@gateway/db';

const ROOT = join(__dirname, '..', '..');

/** The scratch tables the floor writes (bare-session-server.ts), created here before it starts. */
const BARE_SESSION_SCHEMA = [
  'create table "bench_bare_sessions" (like "payments"."payment_sessions" including all)',
  `create table "bench_bare_session_events" (id text primary key, aggregate_id text not null, kind text not null,
     payload text not null, created_at timestamptz not null default now())`,
];

/**
 * The session floor (bare-session-server.ts) started in a process of its own on `databaseUrl`,
 * with its scratch tables, and a pool of the platform's size: the URL of its POST /sessions.
 */
export async function startSessionFloor(databaseUrl: string): Promise<{ url: string; stop(): Promise<void> }> {
  const db = await openDatabase({ url: databaseUrl, poolSize: 1 });
  try {
    for (const statement of BARE_SESSION_SCHEMA) await db.knex.raw(statement);
  } finally {
    await db.close();
  }
  const child = fork(join(ROOT, 'bench/support/bare-session-server.ts'), [], {
    cwd: ROOT,
    execArgv: ['-r', './scripts/register.js'],
    env: { ...process.env, DATABASE_URL: databaseUrl, BARE_POOL_SIZE: String(DEFAULT_POOL_SIZE) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve((message as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`the session floor exited (${code}) before it listened`)));
  });
  return {
    url: `http://127.0.0.1:${port}/sessions`,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      await exited;
    },
  };
}
