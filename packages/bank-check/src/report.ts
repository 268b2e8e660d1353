import type { BankCheckResult } from './types';

/** The pass/fail table: one row per step (number, name, result, what the check saw). */
export function formatReport(result: BankCheckResult): string {
  const { target } = result;
  const rows = result.steps.map((step) => [String(step.number), step.name, step.status, step.detail]);
  const widths = [0, 1, 2].map((i) =>
    Math.max(...[['#', 'step', 'result'][i]!.length, ...rows.map((row) => row[i]!.length)]),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => (i < 3 ? cell.padEnd(widths[i]!) : cell))
      .join('  ')
      .trimEnd();
  const counts = (['PASS', 'FAIL', 'WARN', 'SKIP'] as const).map(
    (status) => [status, result.steps.filter((s) => s.status === status).length] as const,
  );
  const amount = `${target.amount}${target.currency ? ` ${target.currency}` : ''} minor units`;
  return [
    `Bank onboarding check of ${target.url}`,
    `account ${target.iban}, customer ${target.customerRef}, amount ${amount}; references ${target.references.debit} (debit), ${target.references.credit} (credit)`,
    '',
    line(['#', 'step', 'result', 'what it saw']),
    ...rows.map(line),
    '',
    ...result.notes.map((note) => `note: ${note}`),
    `${result.ok ? 'PASSED' : 'FAILED'}: ${counts
      .filter(([, n]) => n > 0)
      .map(([status, n]) => `${n} ${status}`)
      .join(', ')}`,
  ].join('\n');
}
