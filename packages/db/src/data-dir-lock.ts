import { linkSync, mkdirSync, readFileSync, realpathSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * One process at a time on an embedded data directory: two PGlite instances writing the same
 * files corrupt them (every later start dies with `RuntimeError: Aborted()`).
 *
 * A PostgreSQL-style pid file with a liveness check (`process.kill(pid, 0)`) rather than
 * proper-lockfile: that library decides staleness by the lock's mtime, refreshed on a timer, so
 * a lock left by `kill -9` blocks every start until it ages out, and a live platform whose event
 * loop is held by synchronous WASM work (migrations, a big query) longer than the stale period
 * loses its lock to a second start. A pid answers both questions at once (is the owner alive?)
 * and names the owner in the refusal.
 */
export const LOCK_FILE = 'gateway.lock';

/** Directories this process holds (a second open in the same process corrupts just as well). */
const held = new Set<string>();

export interface LockOwner {
  pid: number;
  hostname: string;
  started_at: string;
}

export interface DataDirLock {
  readonly dir: string;
  /** Removes the pid file if it is still ours; safe to call twice. */
  release(): void;
}

/** Another live process holds the directory. The message is what the user reads. */
export class DataDirLockedError extends Error {
  constructor(
    readonly dir: string,
    readonly pid: number,
  ) {
    super(
      `The embedded database in ${dir} is in use by another platform (process ${pid}${pid === process.pid ? ', this very process' : ''}). ` +
        'Two processes on one PGlite directory corrupt it, so this start stops here and the other one keeps serving. ' +
        `Stop the other one first (kill ${pid}), or give this one a data directory of its own (DATA_DIR).`,
    );
    this.name = 'DataDirLockedError';
  }
}

export function lockDataDir(dir: string): DataDirLock {
  mkdirSync(dir, { recursive: true });
  const key = realpathSync(dir);
  if (held.has(key)) throw new DataDirLockedError(dir, process.pid);
  const file = join(dir, LOCK_FILE);
  const owner: LockOwner = { pid: process.pid, hostname: hostname(), started_at: new Date().toISOString() };
  // A few rounds: a concurrent start can create, release or take over the file between our steps.
  for (let round = 0; round < 50; round++) {
    if (tryCreate(file, owner)) {
      held.add(key);
      let released = false;
      return {
        dir,
        release() {
          if (released) return;
          released = true;
          held.delete(key);
          if (ownerPid(file) === process.pid) rmSync(file, { force: true });
        },
      };
    }
    const current = readOwner(file);
    if (current === undefined) continue; // released meanwhile
    if (current !== 'unreadable' && alive(current.pid)) throw new DataDirLockedError(dir, current.pid);
    takeOverStale(file, current);
  }
  throw new DataDirLockedError(dir, ownerPid(file) ?? 0);
}

/**
 * Creates the pid file with its content in one step: written aside, then hard-linked into place.
 * link() fails if the name exists, so no reader ever sees a half-written pid file.
 */
function tryCreate(file: string, owner: LockOwner): boolean {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(owner)}\n`);
  try {
    linkSync(temporary, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    rmSync(temporary, { force: true });
  }
}

function readOwner(file: string): LockOwner | 'unreadable' | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    const parsed = JSON.parse(text) as LockOwner;
    return Number.isInteger(parsed.pid) && parsed.pid > 0 ? parsed : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

function ownerPid(file: string): number | undefined {
  const owner = readOwner(file);
  return typeof owner === 'object' ? owner.pid : undefined;
}

function alive(pid: number): boolean {
  // Our own pid in a file we do not hold: a previous run in a container that reuses pids (pid 1).
  if (pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes a pid file whose owner is dead. Two starts can find the same stale file: a guard
 * directory (mkdir is atomic) lets one of them check again and remove it, so neither removes a
 * fresh file the other has just created. A guard left by a process killed inside this
 * microsecond-wide section is cleared after a few seconds.
 */
function takeOverStale(file: string, stale: LockOwner | 'unreadable'): void {
  const guard = `${file}.takeover`;
  try {
    mkdirSync(guard);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    const age = Date.now() - (statSync(guard, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
    if (age > 5_000) rmSync(guard, { recursive: true, force: true });
    else sleep(20);
    return;
  }
  try {
    const current = readOwner(file);
    const same =
      current === stale ||
      (typeof current === 'object' &&
        typeof stale === 'object' &&
        current.pid === stale.pid &&
        current.started_at === stale.started_at);
    if (same) rmSync(file, { force: true });
  } finally {
    rmdirSync(guard);
  }
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
