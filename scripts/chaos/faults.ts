import { setTimeout as sleep } from 'node:timers/promises';
import type { ServiceProcess } from '../launcher/service-process';
import type { SandboxCores } from './cores';
import type { CuttableProxy } from './cuttable-proxy';
import type { Deployment } from './deployment';
import { log } from './log';
import { between, pick } from './random';
import { KILL_EVERY_SECONDS, KILL_KINDS, KILL_PICK, SIGNALS } from './settings';
import type { TakeoverWatch } from './takeover';

/** What the chaos did, by kind (printed as is: the keys are the log's). */
export interface FaultCounts {
  /** By `<service> <signal>`. */
  kills: Record<string, number>;
  /** Core faults by kind. */
  faults: Record<string, number>;
  amqp_cuts: number;
  amqp_connections_dropped: number;
}

/**
 * The chaos while payments are driven, as three independent loops: process kills (SIGKILL or
 * SIGTERM, then a restart), bank core faults (5xx, 5xx after booking, hangs, late answers), and
 * RabbitMQ cuts (every connection through the proxy dropped, new ones refused for a while).
 */
export class Faults {
  readonly counts: FaultCounts = { kills: {}, faults: {}, amqp_cuts: 0, amqp_connections_dropped: 0 };
  private driving = true;
  private running: Promise<unknown> = Promise.resolve();
  private readonly lastKill = new Map<ServiceProcess, number>();

  constructor(
    private readonly deployment: Deployment,
    private readonly cores: SandboxCores,
    private readonly proxy: CuttableProxy,
    private readonly takeover: TakeoverWatch,
  ) {}

  start(): void {
    this.running = Promise.all([this.killLoop(), this.faultLoop(), this.cutLoop()]);
  }

  /** Ends the loops (each finishes the fault it is in: a killed service is restarted, a cut restored). */
  async stop(): Promise<void> {
    this.driving = false;
    await this.running;
  }

  private async killLoop(): Promise<void> {
    while (this.driving) {
      await sleep(between(KILL_EVERY_SECONDS * 500, KILL_EVERY_SECONDS * 1500));
      if (!this.driving) break;
      const instances = this.deployment.of(pick(KILL_KINDS));
      const victim =
        KILL_PICK === 'longest-up'
          ? instances.reduce((oldest, instance) =>
              (this.lastKill.get(instance) ?? 0) < (this.lastKill.get(oldest) ?? 0) ? instance : oldest,
            )
          : pick(instances);
      this.lastKill.set(victim, Date.now());
      // With replicas, by default half the stops are an orchestrator's SIGTERM (drain, stop, exit 0) and half a crash.
      // One signal draws nothing: a seed replays the runs from before CHAOS_SIGNALS.
      const signal = SIGNALS.length > 1 ? pick(SIGNALS) : SIGNALS[0]!;
      await this.stopInstance(victim, signal);
      await sleep(between(200, 3000));
      await victim.start();
      log(`restarted ${victim.name} (pid ${victim.child?.pid})`);
    }
  }

  private async stopInstance(victim: ServiceProcess, signal: 'SIGKILL' | 'SIGTERM'): Promise<void> {
    // The payments held by a run, read just before the signal (waiting up to 5 s for some, so the kill meets payments mid-step): how long until another instance moves them.
    const held = victim.spec.service === 'payments' ? await this.takeover.heldSoon(5_000).catch(() => []) : [];
    log(`${signal} ${victim.name}${held.length ? ` (${held.length} payments held by a run)` : ''}`);
    this.takeover.watch(held, Date.now(), signal);
    if (signal === 'SIGKILL') await victim.kill();
    else {
      const code = await victim.terminate();
      if (code !== 0) log(`${victim.name} exited with ${code} after SIGTERM`);
    }
    const kind = `${victim.spec.service} ${signal}`;
    this.counts.kills[kind] = (this.counts.kills[kind] ?? 0) + 1;
  }

  private async faultLoop(): Promise<void> {
    while (this.driving) {
      await sleep(between(2_000, 6_000));
      if (!this.driving) break;
      const bank = pick(this.cores.banks);
      const kind = pick(['5xx', '5xx-after-booking', 'hang', 'late'] as const);
      const plan =
        kind === '5xx'
          ? { error_rate: 0.5, error_status: 503 }
          : kind === '5xx-after-booking'
            ? { error_rate: 0.5, error_status: 500, after_booking: true, operations: ['debit', 'credit'] }
            : kind === 'hang'
              ? { hang: true, times: between(1, 4), operations: [pick(['debit', 'credit', 'verify'])] }
              : { latency_ms: between(1_000, 6_000) };
      await this.cores.injectFault(bank, plan);
      this.counts.faults[kind] = (this.counts.faults[kind] ?? 0) + 1;
      log(`fault ${kind} at ${bank.handle}`);
      await sleep(between(2_000, 8_000));
      await this.cores.clearFaults(bank);
    }
  }

  private async cutLoop(): Promise<void> {
    while (this.driving) {
      await sleep(between(8_000, 25_000));
      if (!this.driving) break;
      const dropped = this.proxy.cut();
      this.counts.amqp_cuts += 1;
      this.counts.amqp_connections_dropped += dropped;
      log(`RabbitMQ cut (${dropped} connections dropped)`);
      await sleep(between(1_000, 6_000));
      this.proxy.restore();
    }
  }
}
