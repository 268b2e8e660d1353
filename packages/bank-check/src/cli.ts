import { parseArgs } from 'node:util';
import { assertCoreBaseUrl } from '@gateway/bank-core-client';
import { CURRENCIES, parseIban, z } from '@gateway/kernel';
import { runBankCheck } from './check';
import { formatReport } from './report';
import { DEFAULT_AMOUNT, DEFAULT_TIMEOUT_MS, type BankCheckOptions } from './types';

export const USAGE = `Usage: npm run bank-check -- --url <core_base_url> --internal-key <key> --customer-ref <ref> --otp <otp> --iban <iban> [options]

Runs the gateway's onboarding check against a bank core: OTP verification, key refusal, account
read, debit and credit with same-reference retries, insufficient funds, statement, answer times.
Moves --amount out of the test account and back; the balance ends where it started.

Required:
  --url <url>            the core's base URL (core_base_url)
  --internal-key <key>   the X-Service-Internal-Key the gateway sends (or env BANK_CHECK_INTERNAL_KEY)
  --customer-ref <ref>   a test customer
  --otp <otp>            an OTP the core accepts for that customer (or env BANK_CHECK_OTP)
  --iban <iban>          a funded account of that customer

Options:
  --amount <n>           minor units to move (default ${DEFAULT_AMOUNT})
  --currency <code>      ${Object.keys(CURRENCIES).join(', ')} (default: the account's)
  --timeout-ms <n>       how long to wait for one answer (default ${DEFAULT_TIMEOUT_MS})
  --json                 print the result as JSON
  -h, --help             this text

Exit code: 0 every step passed (warnings allowed), 1 a step failed, 2 bad arguments.
The internal key and the OTP are never printed.`;

const OPTIONS = {
  url: { type: 'string' },
  'internal-key': { type: 'string' },
  'customer-ref': { type: 'string' },
  otp: { type: 'string' },
  iban: { type: 'string' },
  amount: { type: 'string' },
  currency: { type: 'string' },
  'timeout-ms': { type: 'string' },
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

const required = z.string({ error: 'required' }).trim().min(1, 'required');
const positiveInteger = z
  .string()
  .regex(/^\d+$/, 'must be a positive integer')
  .transform(Number)
  .refine((n) => Number.isSafeInteger(n) && n > 0, 'must be a positive integer');

const schema = z.object({
  url: required.superRefine((url, ctx) => {
    const problem = assertCoreBaseUrl(url, false);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  }),
  'internal-key': required,
  'customer-ref': required,
  otp: required,
  iban: required.refine((iban) => parseIban(iban) !== null, 'not a valid IBAN (format or checksum)'),
  amount: positiveInteger.optional(),
  currency: z
    .enum(Object.keys(CURRENCIES) as [string, ...string[]], {
      error: `must be one of ${Object.keys(CURRENCIES).join(', ')}`,
    })
    .optional(),
  'timeout-ms': positiveInteger.optional(),
});

export type CliCommand =
  | { kind: 'help' }
  | { kind: 'run'; options: BankCheckOptions; json: boolean }
  | { kind: 'invalid'; problems: string[] };

/** Reads the command line; every problem at once, naming options only (never echoing values). */
export function parseCliArgs(argv: string[], env: Record<string, string | undefined> = {}): CliCommand {
  let values: { [K in keyof typeof OPTIONS]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };
  try {
    values = parseArgs({ args: argv, options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    const message = (error as Error).message.split('\n')[0]!;
    // A stray value may be a key or an OTP given without its option name: never echo it.
    const problem = message.startsWith('Unexpected argument')
      ? 'a value without an option name (every value follows its option, e.g. --otp 123456)'
      : message;
    return { kind: 'invalid', problems: [problem] };
  }
  if (values.help) return { kind: 'help' };
  const parsed = schema.safeParse({
    ...values,
    'internal-key': values['internal-key'] ?? env.BANK_CHECK_INTERNAL_KEY,
    otp: values.otp ?? env.BANK_CHECK_OTP,
  });
  if (!parsed.success)
    return {
      kind: 'invalid',
      problems: parsed.error.issues.map((issue) => `--${issue.path.join('.')}: ${issue.message}`),
    };
  const v = parsed.data;
  return {
    kind: 'run',
    json: values.json === true,
    options: {
      url: v.url,
      internalKey: v['internal-key'],
      customerRef: v['customer-ref'],
      otp: v.otp,
      iban: v.iban,
      ...(v.amount !== undefined ? { amount: v.amount } : {}),
      ...(v.currency !== undefined ? { currency: v.currency } : {}),
      ...(v['timeout-ms'] !== undefined ? { timeoutMs: v['timeout-ms'] } : {}),
    },
  };
}

export interface CliIo {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
  env: Record<string, string | undefined>;
}

/** The command: 0 every step passed, 1 a step failed, 2 bad arguments. */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const command = parseCliArgs(argv, io.env);
  if (command.kind === 'help') {
    io.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command.kind === 'invalid') {
    io.stderr.write(`bank-check: ${command.problems.join('\n  ')}\n\n${USAGE}\n`);
    return 2;
  }
  const result = await runBankCheck(command.options);
  io.stdout.write(command.json ? `${JSON.stringify(result, null, 2)}\n` : `${formatReport(result)}\n`);
  return result.ok ? 0 : 1;
}
