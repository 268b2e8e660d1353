import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { openTestDatabase } from '@gateway/db/testing';
import type { Database } from '@gateway/db';
import type { SandboxBank } from '@gateway/bank-sandbox';
import { startTestBank, TEST_INTERNAL_KEY } from '@gateway/bank-sandbox/testing';
import { parseCliArgs } from './cli';

const ROOT = join(__dirname, '..', '..', '..');
const OTP = '739184';

/** Runs the command as a bank would, in a process of its own. */
function runCommand(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-r', './scripts/register.js', 'packages/bank-check/src/main.ts', ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'silent' },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('bank-check command', () => {
  let db: Database;
  let bank: SandboxBank;

  beforeAll(async () => {
    db = await openTestDatabase();
    bank = await startTestBank(db, { handle: 'bank1', institutionCode: '001' });
  });
  afterAll(async () => {
    await bank.stop();
    await db.close();
  });

  it('prints the table and exits 0 against the sandbox bank, never printing the key or the OTP', async () => {
    const account = await bank.openAccount({
      customerRef: 'cli-cust',
      holderName: 'CLI Customer',
      currency: 'LYD',
      balance: 3_000,
    });
    await bank.setOtp('cli-cust', OTP);
    const { code, stdout, stderr } = await runCommand([
      '--url',
      bank.url,
      '--internal-key',
      TEST_INTERNAL_KEY,
      '--customer-ref',
      'cli-cust',
      '--otp',
      OTP,
      '--iban',
      account.iban,
      '--amount',
      '120',
    ]);

    expect({ code, stderr }).toEqual({ code: 0, stderr: '' });
    expect(stdout).toMatch(/^#\s+step\s+result\s+what it saw$/m);
    expect(stdout).toMatch(/^5\s+debit \+ same-reference retry\s+PASS\s+booked once: balance 3000 → 2880/m);
    expect(stdout.match(/^\d+\s+.*\s(PASS|FAIL|WARN|SKIP)\s/gm)).toHaveLength(10);
    expect(stdout).toContain('PASSED: 10 PASS');
    expect(stdout).not.toContain(TEST_INTERNAL_KEY);
    expect(stdout).not.toContain(OTP);
    expect((await bank.getAccount(account.iban))?.balance).toBe(3_000);
  });

  it('exits 2 with the usage on bad arguments, naming the options but not the key', async () => {
    const { code, stdout, stderr } = await runCommand([
      '--internal-key',
      TEST_INTERNAL_KEY,
      '--otp',
      OTP,
      '--iban',
      'LY00 not an iban',
      '--amount',
      'abc',
    ]);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toContain('--url: required');
    expect(stderr).toContain('--customer-ref: required');
    expect(stderr).toContain('--iban: not a valid IBAN');
    expect(stderr).toContain('--amount: must be a positive integer');
    expect(stderr).toContain('Usage: npm run bank-check --');
    expect(stderr).not.toContain(TEST_INTERNAL_KEY);
    expect(stderr).not.toContain(OTP);
  });
});

describe('parseCliArgs', () => {
  const base = ['--url', 'https://core.example', '--customer-ref', 'c1', '--iban', 'LY24002001000000000000042'];

  it('takes the key and the OTP from the environment when not given as options', () => {
    expect(
      parseCliArgs([...base, '--json'], { BANK_CHECK_INTERNAL_KEY: 'k-from-env', BANK_CHECK_OTP: '1234' }),
    ).toEqual({
      kind: 'run',
      json: true,
      options: {
        url: 'https://core.example',
        internalKey: 'k-from-env',
        customerRef: 'c1',
        otp: '1234',
        iban: 'LY24002001000000000000042',
      },
    });
  });

  it('reads --amount, --currency and --timeout-ms, and refuses unknown options and bad values', () => {
    const run = parseCliArgs([
      ...base,
      '--internal-key',
      'k',
      '--otp',
      '1',
      '--amount',
      '250',
      '--currency',
      'USD',
      '--timeout-ms',
      '3000',
    ]);
    expect(run).toMatchObject({ kind: 'run', options: { amount: 250, currency: 'USD', timeoutMs: 3000 } });
    expect(
      parseCliArgs([...base, '--internal-key', 'k', '--otp', '1', '--currency', 'GBP', '--amount', '1.5']),
    ).toEqual({
      kind: 'invalid',
      problems: ['--amount: must be a positive integer', '--currency: must be one of LYD, USD, EUR'],
    });
    expect(parseCliArgs(['--bogus'])).toMatchObject({
      kind: 'invalid',
      problems: [expect.stringContaining('--bogus')],
    });
    // a key pasted without its option name is refused without being echoed
    expect(JSON.stringify(parseCliArgs([...base, 'sik_pasted_secret']))).not.toContain('sik_pasted_secret');
    expect(parseCliArgs(['--url', 'ftp://core.example'])).toMatchObject({
      kind: 'invalid',
      problems: expect.arrayContaining([expect.stringMatching(/^--url: must use https/)]),
    });
  });
});
