import {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { writeFileAtomicSync } from './atomic-file';

describe('writeFileAtomicSync', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-atomic-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('replaces the file whole: a reader of the old one still reads all of it, and nothing is left aside', () => {
    const file = join(dir, 'demo.json');
    writeFileSync(file, '{"old":true}\n');
    const reader = openSync(file, 'r');
    try {
      writeFileAtomicSync(file, '{"new":true}\n', { mode: 0o600 });
      // Written in place, the old content would be gone (truncated) under the open reader.
      const buffer = Buffer.alloc(64);
      expect(buffer.subarray(0, readSync(reader, buffer, 0, 64, 0)).toString()).toBe('{"old":true}\n');
    } finally {
      closeSync(reader);
    }
    expect(readFileSync(file, 'utf8')).toBe('{"new":true}\n');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(dir)).toEqual(['demo.json']);
  });

  it('leaves the old file and no temporary file when the write fails', () => {
    const file = join(dir, 'kept.json');
    writeFileSync(file, 'kept');
    // A directory where the file should be: the rename fails after the temporary file was written.
    const blocked = join(dir, 'blocked');
    mkdirSync(blocked);
    writeFileSync(join(blocked, 'inside'), '');
    expect(() => writeFileAtomicSync(blocked, 'new')).toThrow();
    expect(readFileSync(file, 'utf8')).toBe('kept');
    expect(readdirSync(dir).sort()).toEqual(['blocked', 'demo.json', 'kept.json']);
  });
});
