import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

/** The machine's CPU time so far (all cores), busy and total, from /proc/stat; undefined off Linux. */
function cpuTimes(): { busy: number; total: number } | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((a, b) => a + b, 0);
    // idle and iowait
    return { busy: total - fields[3]! - (fields[4] ?? 0), total };
  } catch {
    return undefined;
  }
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
 * open, arrivals in flight, the machine's CPU busy (the machine may be shared); and it closes the latency window (series.ts takes p50/p99 per operation from them).
 */
export class Sampler {
  /** By series name; t in seconds since the load began. */
  readonly points = new Map<string, Point[]>();
  private stopped = false;
  private cpu = cpuTimes();
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
    if (cpu && this.cpu && cpu.total > this.cpu.total)
      this.add('machine CPU busy', t, ((cpu.busy - this.cpu.busy) / (cpu.total - this.cpu.total)) * 100);
    this.cpu = cpu;
    this.add('subscriptions open', t, subscriptions.watched.filter((w) => !w.order.final).length);
    const [connections, outbox, deliveries] = await Promise.all([
      count(
        knex
          .raw(`select count(*) as count from pg_stat_activity where datname = current_database()`)
          .then((r) => r.rows),
      ),
      count(knex('payments.outbox').whereNull('published_at').count('* as count')),
      count(knex('payments.webhook_deliveries').whereNotIn('status', ['DELIVERED', 'FAILED']).count('* as count')),
    ]);
    this.add('PostgreSQL connections', t, connections);
    this.add('outbox unpublished', t, outbox);
    this.add('webhook deliveries pending', t, deliveries);
    if (vhost) for (const [queue, depth] of await queueDepths(vhost)) this.add(`queue depth: ${queue}`, t, depth);
  }
}
