import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import type { Database } from '@gateway/db';
import type { SubscriptionSample } from '../chaos/subscription-sample';
import type { Latencies } from './latency';
import type { OpenLoop } from './load';
import type { Point } from './verdicts';

type Knex = Database['knex'];
const run = promisify(execFile);

/**
 * Depths of the run's RabbitMQ queues (the services' durable groups and the routers' exclusive
 * fan-out queues) by `rabbitmqctl list_queues` in the run's own vhost (the management API is not
 * enabled here; a passive declare could not read another connection's exclusive queues).
 */
export async function queueDepths(vhost: string): Promise<Map<string, number>> {
  const { stdout } = await run(
    'rabbitmqctl',
    ['list_queues', '-p', vhost, '--no-table-headers', '-q', 'name', 'messages'],
    {
      timeout: 20_000,
    },
  );
  const depths = new Map<string, number>();
  for (const line of stdout.split('\n')) {
    const [name, messages] = line.trim().split(/\s+/);
    if (name && messages !== undefined && /^\d+$/.test(messages)) depths.set(name, Number(messages));
  }
  return depths;
}

/**
 * The machine's CPU time so far (all cores) from /proc/stat: busy, stolen (by the hypervisor for
 * other guests) and total; undefined off Linux.
 */
function cpuTimes(): { busy: number; stolen: number; total: number } | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    // idle and iowait
    return { busy: total - fields[3]! - (fields[4] ?? 0), stolen: fields[7] ?? 0, total };
  } catch {
    return undefined;
  }
}

// ~1.5 ms a try here: short enough not to delay the calls the driver times, long enough to time.
const CANARY_ROUNDS = 1_000_000;
const CANARY_TRIES = 3;

/**
 * How long a fixed computation takes on this machine (ms), the least of three tries so that a
 * try the scheduler preempts does not count. The load is an open loop at a fixed rate, so when
 * every process's CPU rises together the same work costs more: this says whether the machine
 * itself slowed (a neighbour on the host's shared cores and caches), independently of the platform.
 */
export function canaryMs(): number {
  let best = Infinity;
  for (let attempt = 0; attempt < CANARY_TRIES; attempt++) {
    const started = performance.now();
    let h = 2166136261;
    for (let i = 0; i < CANARY_ROUNDS; i++) h = Math.imul(h ^ (i & 0xff), 16777619) >>> 0;
    const took = performance.now() - started;
    // h keeps the loop from being optimised away
    if (h === 0.5) best = -1;
    best = Math.min(best, took);
  }
  return best;
}

const count = async (query: Promise<Array<{ count: string | number }>>) => Number((await query)[0]!.count);

export interface SamplerInputs {
  knex: Knex;
  /** The run's vhost, when it has one of its own (undefined: queues not sampled). */
  vhost: string | undefined;
  subscriptions: SubscriptionSample;
  load: OpenLoop;
  latencies: Latencies;
  every: number;
}

/**
 * What the soak reads itself every `every` seconds: PostgreSQL connections to the run's
 * database, queue depths, outbox rows unpublished, webhook deliveries pending, subscriptions
 * open, arrivals in flight, the machine's CPU busy and stolen and its speed (the machine may be
 * shared), PostgreSQL's autovacuum workers and checkpoint writes; and it closes the latency window
 * (series.ts takes p50/p99 per operation from them).
 */
export class Sampler {
  /** By series name; t in seconds since the load began. */
  readonly points = new Map<string, Point[]>();
  private stopped = false;
  private cpu = cpuTimes();
  /** pg_stat_bgwriter's running count at the last sample. */
  private checkpointed: number | undefined;
  private loop: Promise<void> | undefined;
  errors = 0;

  constructor(private readonly inputs: SamplerInputs) {}

  start(begin: number): void {
    this.loop = (async () => {
      for (let n = 1; !this.stopped; n++) {
        const due = begin + n * this.inputs.every * 1000;
        while (!this.stopped && Date.now() < due)
          await new Promise((r) => setTimeout(r, Math.min(250, due - Date.now())));
        if (this.stopped) break;
        await this.sample((Date.now() - begin) / 1000).catch(() => (this.errors += 1));
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.loop;
  }

  private add(name: string, t: number, v: number): void {
    const list = this.points.get(name) ?? [];
    list.push({ t, v });
    this.points.set(name, list);
  }

  private async sample(t: number): Promise<void> {
    const { knex, vhost, subscriptions, load, latencies } = this.inputs;
    latencies.close(t);
    this.add('arrivals in flight', t, load.inFlight);
    const cpu = cpuTimes();
    if (cpu && this.cpu && cpu.total > this.cpu.total) {
      const share = (from: number, to: number) => ((to - from) / (cpu.total - this.cpu!.total)) * 100;
      this.add('machine CPU busy', t, share(this.cpu.busy, cpu.busy));
      this.add('machine CPU stolen', t, share(this.cpu.stolen, cpu.stolen));
    }
    this.cpu = cpu;
    this.add('machine speed: a fixed computation', t, canaryMs());
    this.add('subscriptions open', t, subscriptions.watched.filter((w) => !w.order.final).length);
    const [connections, autovacuum, checkpointed, outbox, deliveries] = await Promise.all([
      count(
        knex
          .raw(`select count(*) as count from pg_stat_activity where datname = current_database()`)
          .then((r) => r.rows),
      ),
      // The server's own work, which slows statements without the platform asking more of it.
      count(
        knex
          .raw(`select count(*) as count from pg_stat_activity where backend_type = 'autovacuum worker'`)
          .then((r) => r.rows),
      ),
      // pg_stat_bgwriter until PostgreSQL 16 (17 moved it to pg_stat_checkpointer): a witness, never a lost sample.
      count(knex.raw(`select buffers_checkpoint as count from pg_stat_bgwriter`).then((r) => r.rows)).catch(
        () => undefined,
      ),
      count(knex('payments.outbox').whereNull('published_at').count('* as count')),
      count(knex('payments.webhook_deliveries').whereNotIn('status', ['DELIVERED', 'FAILED']).count('* as count')),
    ]);
    this.add('PostgreSQL connections', t, connections);
    this.add('PostgreSQL autovacuum workers', t, autovacuum);
    if (this.checkpointed !== undefined && checkpointed !== undefined)
      this.add('PostgreSQL buffers written by checkpoints', t, checkpointed - this.checkpointed);
    this.checkpointed = checkpointed;
    this.add('outbox unpublished', t, outbox);
    this.add('webhook deliveries pending', t, deliveries);
    if (vhost) for (const [queue, depth] of await queueDepths(vhost)) this.add(`queue depth: ${queue}`, t, depth);
  }
}
