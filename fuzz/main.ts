/**
 * `npm run fuzz`: starts the platform in this process with the demo data (as `npm start` does,
 * on a fresh database: in-memory PGlite, or a new PostgreSQL database when DATABASE_URL is set),
 * fuzzes every REST route of /openapi.json and every root field of the supergraph, prints what it
 * sent and found, and exits 1 on any finding.
 *
 *   FUZZ_SECONDS=300     how long to send (default 300)
 *   FUZZ_SEED=1234       the run's seed (default: random, printed)
 *   FUZZ_CONCURRENCY=4   requests in flight
 *   FUZZ_ONLY='POST /payments'  only the targets whose name contains this
 *   FUZZ_REPLAY=812      send only request 812 of the seed's run (same FUZZ_ONLY) and print it with its answer
 *   FUZZ_VERBOSE=1       print every request and answer
 */
import { startFixture } from './fixture';
import { runFuzz } from './fuzzer';

void (async () => {
  const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
  const seconds = Number(process.env.FUZZ_SECONDS ?? 300);
  const replay = process.env.FUZZ_REPLAY === undefined ? undefined : Number(process.env.FUZZ_REPLAY);
  console.log(
    `fuzz: seed ${seed}${replay === undefined ? `, ${seconds} s` : `, replaying request ${replay}`}; starting the platform with the demo data…`,
  );
  const fixture = await startFixture();
  let failed: boolean;
  try {
    const {
      report,
      seconds: took,
      targets,
    } = await runFuzz(fixture, {
      seed,
      seconds,
      concurrency: Number(process.env.FUZZ_CONCURRENCY ?? 4),
      replay,
      only: process.env.FUZZ_ONLY || undefined,
      log: replay === undefined && !process.env.FUZZ_VERBOSE ? undefined : (line) => console.log(line),
    });
    console.log(`${targets} targets in rotation`);
    console.log(report.summary(seed, took));
    failed = report.findings.length > 0;
  } finally {
    await fixture.stop();
  }
  process.exit(failed ? 1 : 0);
})().catch((error) => {
  console.error('fuzz: could not run:', error);
  process.exit(2);
});
