/**
 * A settlement cycle's time for 100,000 interbank obligations among 20 banks, on PostgreSQL: the
 * platform as `npm start` runs it (its own process, a fresh database), 20 bank cores written
 * from the spec (the minimal in-memory core: answers in well under a millisecond, so the figure
 * is the gateway's), obligations inserted directly in bulk as cross-bank payments would leave them.
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/test node -r ./scripts/register.js bench/settlement.ts
 *   BENCH_OBLIGATIONS (default 100000), BENCH_BANKS (default 20)
 *
 * Prints the time from POST /settlement/cycles to the cycle SETTLED (taking the obligations,
 * netting, the zero-sum check, one core call per position and its record), checks the positions
 * against a naive netting done here in bigint, and that each core got exactly one movement.
 */
import { performance } from 'node:perf_hooks';
import { openTestDatabase } from '@gateway/db/testing';
import { startMinimalCore, type MinimalCore } from '@gateway/bank-core-client/testing';
import { newId, newSecret } from '@gateway/kernel';
import { composeIBAN } from 'ibantools';
import { ok } from './support/http';
import { launchPlatform } from './support/launcher';
import { report } from './support/results';

const OBLIGATIONS = Number(process.env.BENCH_OBLIGATIONS ?? 100_000);
const BANKS = Number(process.env.BENCH_BANKS ?? 20);
const BATCH = 5_000;

const iban = (institutionCode: string, account: number): string =>
  composeIBAN({ countryCode: 'LY', bban: `${institutionCode}001${String(account).padStart(15, '0')}` })!;

async function main(): Promise<void> {
  if (!process.env.DATABASE_URL)
    throw new Error('bench/settlement.ts needs DATABASE_URL (PostgreSQL): a fresh database is made on that server');
  const db = await openTestDatabase();
  const cores: Array<{ handle: string; code: string; core: MinimalCore; iban: string }> = [];
  const platform = await launchPlatform({ DATABASE_URL: db.url, SETTLEMENT_INTERVAL_SECONDS: '0' });
  const admin = { 'x-service-admin-key': platform.adminKey };
  try {
    for (let i = 0; i < BANKS; i += 1) {
      const code = String(700 + i);
      const handle = `stlbench${code}`;
      const internalKey = newSecret('sik_');
      const core = await startMinimalCore({ internalKey });
      const settlementIban = iban(code, 1);
      core.openAccount(settlementIban, {
        customerRef: `${handle}-settlement`,
        otp: '000000',
        balance: Number.MAX_SAFE_INTEGER / 4,
      });
      await ok(
        'POST',
        `${platform.restUrl}/banks`,
        {
          bank_handle: handle,
          display_name: `Settlement bench ${code}`,
          country: 'LY',
          core_base_url: core.url,
          settlement_account_iban: settlementIban,
          contact_email: `ops@${handle}.example`,
          institution_code: code,
          internal_key: internalKey,
        },
        admin,
      );
      cores.push({ handle, code, core, iban: settlementIban });
    }

    // The obligations, as cross-bank payments leave them, and the naive nets to check the cycle against.
    const expected = new Map<string, bigint>();
    const started = performance.now();
    for (let done = 0; done < OBLIGATIONS; done += BATCH) {
      const rows = Array.from({ length: Math.min(BATCH, OBLIGATIONS - done) }, () => {
        const debtor = Math.floor(Math.random() * BANKS);
        const creditor = (debtor + 1 + Math.floor(Math.random() * (BANKS - 1))) % BANKS;
        const amount = BigInt(100 + Math.floor(Math.random() * 100_000));
        expected.set(cores[debtor]!.handle, (expected.get(cores[debtor]!.handle) ?? 0n) - amount);
        expected.set(cores[creditor]!.handle, (expected.get(cores[creditor]!.handle) ?? 0n) + amount);
        return {
          id: newId('obligation'),
          session_id: newId('paymentSession'),
          livemode: true,
          debtor_bank: cores[debtor]!.handle,
          creditor_bank: cores[creditor]!.handle,
          amount: amount.toString(),
          currency: 'LYD',
          created_at: new Date(),
          settlement_cycle_id: null,
        };
      });
      await db.knex('payments.interbank_obligations').insert(rows);
    }
    console.log(
      `${OBLIGATIONS} obligations among ${BANKS} banks inserted in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    const t0 = performance.now();
    const answered = await ok('POST', `${platform.restUrl}/settlement/cycles`, undefined, admin);
    const answeredMs = performance.now() - t0;
    let cycle = answered;
    while (cycle.status !== 'SETTLED') {
      if (performance.now() - t0 > 120_000) throw new Error(`cycle not settled after 120 s: ${JSON.stringify(cycle)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      cycle = await ok('GET', `${platform.restUrl}/settlement/cycles/${answered.cycle_id}`, undefined, admin);
    }
    const settledMs = performance.now() - t0;

    const got = new Map<string, bigint>(cycle.positions.map((p: any) => [p.bank_handle, BigInt(p.net_amount)]));
    const nonZero = new Map([...expected].filter(([, net]) => net !== 0n));
    const mismatches =
      [...nonZero].filter(([bank, net]) => got.get(bank) !== net).length + (got.size !== nonZero.size ? 1 : 0);
    const sum = [...got.values()].reduce((a, b) => a + b, 0n);
    const movements = cores.map(
      ({ core, iban: account }) =>
        core.entries(account).filter((entry) => entry.reference.startsWith(answered.cycle_id)).length,
    );
    const extra = movements.filter((count, i) => count !== (got.has(cores[i]!.handle) ? 1 : 0)).length;
    console.log(
      `\nsettlement cycle, PostgreSQL, ${cycle.obligation_count} obligations, ${BANKS} banks, ${cycle.positions.length} positions`,
    );
    console.log(`  POST /settlement/cycles answered: ${answeredMs.toFixed(0)} ms (status ${answered.status})`);
    console.log(`  cycle SETTLED after:              ${settledMs.toFixed(0)} ms`);
    console.log(
      `  positions sum to ${sum}; ${mismatches === 0 ? 'equal' : `${mismatches} differ from`} the naive nets; ${extra === 0 ? 'one movement per position at the cores' : `${extra} cores with a wrong count of movements`}`,
    );
    report({
      figure: `settlement cycle of ${cycle.obligation_count} obligations, ${BANKS} banks: POST to SETTLED`,
      value: settledMs,
      unit: 'ms',
    });
    if (mismatches || sum !== 0n || extra || cycle.obligation_count !== OBLIGATIONS) process.exitCode = 1;
  } finally {
    await platform.stop();
    for (const { core } of cores) await core.stop();
    await db.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
