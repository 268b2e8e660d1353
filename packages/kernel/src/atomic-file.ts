import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, dirname, join } from 'node:path';

/**
 * Replaces `file` with `data` so that a crash or a kill at any moment leaves either the old
 * content or the new one, never a truncated file: write a temporary file in the same directory
 * (rename is only atomic within one file system), fsync it, rename it over the target, then
 * fsync the directory so the rename itself survives a power cut.
 *
 * Hand-written rather than `write-file-atomic`: that package does not fsync the directory, and
 * it installs process signal handlers (signal-exit) that would interfere with the launcher's own
 * shutdown on SIGINT/SIGTERM. This is the whole of it.
 */
export function writeFileAtomicSync(file: string, data: string, options: { mode?: number } = {}): void {
  const directory = dirname(file);
  const temporary = join(directory, `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    const fd = openSync(temporary, 'wx', options.mode ?? 0o644);
    try {
      writeSync(fd, data);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(temporary, file);
  } catch (error) {
    rmSync(temporary, { force: true });
    throw error;
  }
  fsyncDirectory(directory);
}

function fsyncDirectory(directory: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(directory, 'r');
    fsyncSync(fd);
  } catch {
    // Some platforms (Windows) cannot open or fsync a directory; the rename is still atomic there.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
