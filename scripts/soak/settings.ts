import { parseArgs } from 'node:util';

/**
 * The soak run's settings (docs/soak.md), from the command line. Imported first by soak.ts: the
 * chaos modules it reuses read `--replicas` from the command line strictly (scripts/chaos/settings.ts)
 * and must not meet the soak's own flags, so they are taken off process.argv here.
 */
const { values } = parseArgs({
  options: {
    minutes: { type: 'string', default: '10' },
    'warmup-minutes': { type: 'string', default: '0' },
    layout: { type: 'string', default: 'one-process' },
    fraction: { type: 'string', default: '0.4' },
    'capacity-seconds': { type: 'string', default: '15' },
    'sample-seconds': { type: 'string', default: '10' },
    'read-share': { type: 'string', default: '0.5' },
    out: { type: 'string' },
  },
});
process.argv.splice(2);

const number = (name: keyof typeof values, min: number, max: number): number => {
  const value = Number(values[name]);
  if (!Number.isFinite(value) || value < min || value > max)
    throw new Error(`--${name}: a number from ${min} to ${max}`);
  return value;
};

export type Layout = 'one-process' | 'split';

export const SETTINGS = {
  /** Minutes of steady load (the verdicts' span); capacity, start, quiet and checks come on top. */
  minutes: number('minutes', 0.5, 24 * 60),
  /**
   * Minutes of the same load before the judged span, sampled by nobody: the JIT's warm-up, which
   * a short run's first quarter does not hold (a five-minute run's heap still grew by its compiled
   * metadata; an hour's first quarter holds it).
   */
  warmupMinutes: number('warmup-minutes', 0, 60),
  layout: values.layout as Layout,
  /** The open-loop arrival rate as a share of the capacity measured at the start. */
  fraction: number('fraction', 0.01, 1),
  /** Seconds of closed-loop payments that measure the capacity. */
  capacitySeconds: number('capacity-seconds', 5, 120),
  /** Seconds between two samples (the probe's and the driver's). */
  sampleSeconds: number('sample-seconds', 1, 60),
  /** Reads (a session's status, an account's balances) per payment arrival, on average. */
  readShare: number('read-share', 0, 5),
  /** Where the report goes (default: a new folder under the OS temp dir). */
  out: values.out,
};
if (SETTINGS.layout !== 'one-process' && SETTINGS.layout !== 'split')
  throw new Error(`--layout: one-process or split (got ${values.layout})`);
