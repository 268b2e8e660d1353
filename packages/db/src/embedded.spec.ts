import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DataDirLockedError,
  EmbeddedDatabaseError,
  LOCK_FILE,
  lockDataDir,
  openDatabase,
  startEmbeddedPostgres,
} from './index';

const ROOT = join(__dirname, '..', '..', '..');

/**
 * Another process holding an embedded database on `dir`: it creates a table, inserts a row
 * (committed), prints its connection URL and waits to be killed.
 */
function holder(dir: string): Promise<{ child: ChildProcess; url: string }> {
  const script = `
    const { startEmbeddedPostgres } = require('./packages/db/src/embedded.ts');
    const { PGlite } = require('@electric-sql/pglite');
    startEmbeddedPostgres(${JSON.stringify(dir)}).then(async (pg) => {
      const { openDatabase } = require('./packages/db/src/database.ts');
      const db = await openDatabase({ url: pg.url });
      await db.knex.raw('create table if not exists kept (id int primary key)');
      await db.knex.raw('insert into kept values (1) on conflict do nothing');
      console.log('URL ' + pg.url);
    }, (error) => { console.error(error.message); process.exit(2); });`;
  const child = spawn(process.execPath, ['-r', './scripts/register.js', '-e', script], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`holder did not start:\n${output}`)), 45_000);
    child.stdout!.on('data', () => {
      const url = /URL (\S+)/.exec(output)?.[1];
      if (url) {
        clearTimeout(timer);
        resolve({ child, url });
      }
    });
    child.once('exit', (code) => reject(new Error(`holder exited with ${code}:\n${output}`)));
  });
}

async function killed(child: ChildProcess, signal: NodeJS.Signals): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  await exited;
}

/** The pid of a process that has exited (the kernel does not hand it out again this soon). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

describe('embedded data directory', () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'gw-embedded-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(async () => {
    for (const child of children) await killed(child, 'SIGKILL');
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('refuses a second process on the same directory, naming it and the holder, while the first keeps answering', async () => {
    const dir = tempDir();
    const first = await holder(dir);
    children.push(first.child);

    const refusal = await startEmbeddedPostgres(dir).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refusal).toBeInstanceOf(DataDirLockedError);
    expect((refusal as Error).message).toContain(
      `The embedded database in ${dir} is in use by another platform (process ${first.child.pid})`,
    );

    const db = await openDatabase({ url: first.url });
    try {
      expect((await db.knex.raw('select id from kept')).rows).toEqual([{ id: 1 }]);
    } finally {
      await db.close();
    }
  });

  it('takes over the lock of a process killed with -9 and keeps its committed data', async () => {
    const dir = tempDir();
    const first = await holder(dir);
    children.push(first.child);
    await killed(first.child, 'SIGKILL');
    expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(first.child.pid);

    const pg = await startEmbeddedPostgres(dir);
    const db = await openDatabase({ url: pg.url });
    try {
      expect(JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')).pid).toBe(process.pid);
      expect((await db.knex.raw('select id from kept')).rows).toEqual([{ id: 1 }]);
    } finally {
      await db.close();
      await pg.stop();
    }
    // Released on a clean stop: the next start finds no lock at all.
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });

  it('takes over a stale or unreadable pid file, refuses a second lock in the same process, and releases once', async () => {
    const dir = tempDir();
    writeFileSync(join(dir, LOCK_FILE), JSON.stringify({ pid: await deadPid(), hostname: 'x', started_at: '' }));
    const lock = lockDataDir(dir);
    expect(() => lockDataDir(dir)).toThrow(new DataDirLockedError(dir, process.pid));
    lock.release();
    lock.release();
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);

    writeFileSync(join(dir, LOCK_FILE), '');
    lockDataDir(dir).release();
  });

  it('says what happened and what to do when PGlite cannot open its files, and leaves no lock behind', async () => {
    const dir = tempDir();
    const pg = await startEmbeddedPostgres(dir);
    await pg.stop();
    // What two processes writing one directory at once left behind: PGlite aborts on open.
    truncateSync(join(dir, 'global', 'pg_control'), 0);

    const failure = await startEmbeddedPostgres(dir).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(EmbeddedDatabaseError);
    expect((failure as Error).message).toBe(
      `The embedded database in ${dir} could not be opened: Aborted(). If another platform was running on it, stop it and start again; ` +
        `to start afresh, move ${dir} aside (its data stays there for a later look) and start again.`,
    );
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  });
});
