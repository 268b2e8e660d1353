/**
 * The bank onboarding check, as a command:
 *   npm run bank-check -- --url https://core.example --internal-key … --customer-ref … --otp … --iban …
 * Exit code: 0 every step passed (warnings allowed), 1 a step failed, 2 bad arguments.
 */
import { runCli } from './cli';

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr, env: process.env }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`bank-check: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exitCode = 1;
  },
);
