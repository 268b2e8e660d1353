import { setTimeout as sleep } from 'node:timers/promises';
import type { Database } from '@gateway/db';
import type { Client } from './client';
import type { Check } from './invariants';
import { log } from './log';

/*
 * Net debit caps under chaos (issue 48, README "Net debit caps"; docs/chaos.md). The run caps one
 * payer bank in LYD (live) at onboarding, low enough that some of its cross-bank payments are
 * refused 422 NET_DEBIT_CAP_EXCEEDED; then
 * - every SAMPLE_EVERY_MS while it drives and waits for quiet, one statement (one snapshot) reads
 *   every position row beside the obligations no cycle has taken and the reservations: no
 *   position (unsettled_net + reserved) above its cap (CappedMax), and each row equal to what
 *   those say;
 * - once quiet: every reservation is owned by an unfinished movement (its execution not done, the
 *   movement not final), each position equals its unsettled obligations (as debtor minus as
 *   creditor) plus its live reservations, and the sessions refused by the cap moved nothing.
 */

type Knex = Database['knex'];

/** The capped bank: the third core's (the merchants' settlement accounts are at the first two, so no refund is its). */
export const CAPPED_BANK_INDEX = 2;
export const CAPPED_CURRENCY = 'LYD';
/** How often the positions are sampled. */
const SAMPLE_EVERY_MS = 2_000;

/**
 * The cap when CHAOS_NET_DEBIT_CAP does not set one: 4 000, a little below the largest payment.
 * A position is net (owed minus owed to the bank) and the driver's flows between the banks are
 * symmetric, so it stays far below the gross volume: uncapped, the third bank's position reached
 * at most 3 913 in a short run (150 payments in 75 s, a cycle every 20 s), where a third of its
 * gross cross-bank debits per cycle (about 6 200) would refuse nothing. At 4 000 a payment is
 * refused when the bank's position plus its amount passes the cap: big ones while the bank owes,
 * even at an empty position the largest (over 4 000), and the bank pays more while it is owed.
 */
const DEFAULT_CAP = 4_000;

/** The cap the run sets on the capped bank: CHAOS_NET_DEBIT_CAP (minor units) or DEFAULT_CAP. */
export function netDebitCap(): number {
  if (!process.env.CHAOS_NET_DEBIT_CAP) return DEFAULT_CAP;
  const cap = Number(process.env.CHAOS_NET_DEBIT_CAP);
  if (!Number.isInteger(cap) || cap < 0) throw new Error('CHAOS_NET_DEBIT_CAP: minor units, 0 or more');
  return cap;
}

/** The cap the run set (at onboarding). */
export interface CapSet {
  bank: string;
  currency: string;
  cap: number;
}

/** Sets the run's cap through the public API (admin) and checks the answer. */
export async function setNetDebitCap(
  client: Client,
  rest: string,
  admin: Record<string, string>,
  bank: string,
): Promise<CapSet> {
  const cap = netDebitCap();
  const set = await client.ok(
    'PUT',
    `${rest}/banks/${bank}/net-debit-caps/${CAPPED_CURRENCY}`,
    { net_debit_cap: cap },
    admin,
  );
  if (set.net_debit_cap !== cap || set.livemode !== true || set.position !== 0)
    throw new Error(`PUT net-debit-caps answered ${JSON.stringify(set)}`);
  return { bank, currency: CAPPED_CURRENCY, cap };
}

/** A position row beside what the obligations and reservations say it is (one snapshot). */
export interface PositionSample {
  bank_handle: string;
  currency: string;
  livemode: boolean;
  cap: number | null;
  unsettled_net: number;
  reserved: number;
  /** Obligations no cycle has taken: owed as debtor minus owed to it as creditor. */
  obligations_net: number;
  reservations: number;
  reservation_rows: number;
  last_cycle_id: string | null;
}

/** Every (bank, currency, world) that has a position row, an unsettled obligation or a reservation, in one statement. */
const POSITIONS_SQL = `
with "open" as (
  select "debtor_bank" as "bank", "currency", "livemode", "amount" as "owed" from "payments"."interbank_obligations" where "settlement_cycle_id" is null
  union all
  select "creditor_bank", "currency", "livemode", -"amount" from "payments"."interbank_obligations" where "settlement_cycle_id" is null),
"owed" as (select "bank", "currency", "livemode", sum("owed") as "net" from "open" group by 1, 2, 3),
"held" as (select "bank_handle" as "bank", "currency", "livemode", sum("amount") as "amount", count(*) as "rows"
  from "payments"."position_reservations" group by 1, 2, 3),
"keys" as (
  select "bank_handle" as "bank", "currency", "livemode" from "payments"."net_debit_positions"
  union select "bank", "currency", "livemode" from "owed"
  union select "bank", "currency", "livemode" from "held")
select k."bank" as "bank_handle", k."currency", k."livemode", p."net_debit_cap"::text as "cap",
  coalesce(p."unsettled_net", 0)::text as "unsettled_net", coalesce(p."reserved", 0)::text as "reserved",
  coalesce(o."net", 0)::text as "obligations_net", coalesce(h."amount", 0)::text as "reservations",
  coalesce(h."rows", 0)::text as "reservation_rows", p."last_cycle_id"
from "keys" k
  left join "payments"."net_debit_positions" p on p."bank_handle" = k."bank" and p."currency" = k."currency" and p."livemode" = k."livemode"
  left join "owed" o on o."bank" = k."bank" and o."currency" = k."currency" and o."livemode" = k."livemode"
  left join "held" h on h."bank" = k."bank" and h."currency" = k."currency" and h."livemode" = k."livemode"
order by 1, 2, 3`;

export async function readPositions(knex: Knex): Promise<PositionSample[]> {
  const { rows } = await knex.raw(POSITIONS_SQL);
  return (rows as Array<Record<string, any>>).map((row) => ({
    bank_handle: row.bank_handle as string,
    currency: row.currency as string,
    livemode: row.livemode as boolean,
    cap: row.cap === null ? null : Number(row.cap),
    unsettled_net: Number(row.unsettled_net),
    reserved: Number(row.reserved),
    obligations_net: Number(row.obligations_net),
    reservations: Number(row.reservations),
    reservation_rows: Number(row.reservation_rows),
    last_cycle_id: row.last_cycle_id as string | null,
  }));
}

const keyOf = (row: PositionSample) => `${row.bank_handle} ${row.currency} ${row.livemode ? 'live' : 'test'}`;
const positionOf = (row: PositionSample) => row.unsettled_net + row.reserved;
/** What the row should say: its position by its obligations and reservations; undefined when it does. */
export function mismatchOf(row: PositionSample): string | undefined {
  if (row.unsettled_net === row.obligations_net && row.reserved === row.reservations) return undefined;
  return `${keyOf(row)}: unsettled_net ${row.unsettled_net} vs obligations ${row.obligations_net}, reserved ${row.reserved} vs ${row.reservation_rows} reservations of ${row.reservations}`;
}

/**
 * The highest position a capped row reached over the samples, and the samples above its cap. A
 * reservation is admitted only while the bank's exposure (what it owes, not below 0, plus what is
 * reserved) + amount <= cap, and no other write raises the exposure: a booked obligation replaces
 * its reservation, a release or a credit lowers it, and a settlement cycle brings what it owes to
 * 0. The position (owed minus owed to it, plus reserved) is never above the exposure, so any sample
 * above the cap is a failure. (Before the exposure rule, a cycle paying a bank what it was owed
 * lifted its position above the cap by the reservations admitted against that credit: seed 32055
 * read 6,988 against 4,000.)
 */
export interface CappedMax {
  key: string;
  cap: number;
  max: number;
  /** Samples above the cap. */
  above: number;
}

/**
 * Invariant A (and the sampled half of B): reads every position row every SAMPLE_EVERY_MS from the
 * database, in one statement, until stopped.
 */
export class PositionSampler {
  samples = 0;
  /** Samples the database did not answer (a statement timed out or the pool was busy): not counted. */
  unread = 0;
  readonly capped = new Map<string, CappedMax>();
  /** Rows not equal to their obligations and reservations, over every sample. */
  mismatches = 0;
  /** The first few above the cap or not equal, with the row as read. */
  readonly examples: string[] = [];
  /** The highest total reserved seen on a capped row (the reservations in flight at once). */
  maxReserved = 0;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly knex: Knex) {}

  start(): void {
    this.running = this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.running;
    // One more after the last wait: what the run ended with.
    await this.sample();
  }

  /** Over every capped row: the samples above the cap. */
  get aboveCap(): number {
    return [...this.capped.values()].reduce((n, row) => n + row.above, 0);
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      await this.sample();
      await sleep(SAMPLE_EVERY_MS);
    }
  }

  private async sample(): Promise<void> {
    let rows: PositionSample[];
    try {
      rows = await readPositions(this.knex);
    } catch (error) {
      this.unread += 1;
      if (this.unread <= 3) log(`net debit positions: sample not read (${String(error)})`);
      return;
    }
    this.samples += 1;
    for (const row of rows) {
      const mismatch = mismatchOf(row);
      if (mismatch) {
        this.mismatches += 1;
        this.example(`sample ${this.samples}: ${mismatch}`);
      }
      if (row.cap === null) continue;
      const key = keyOf(row);
      const position = positionOf(row);
      const seen: CappedMax = this.capped.get(key) ?? { key, cap: row.cap, max: position, above: 0 };
      seen.cap = row.cap;
      seen.max = Math.max(seen.max, position);
      this.maxReserved = Math.max(this.maxReserved, row.reserved);
      if (position > row.cap) {
        seen.above += 1;
        this.example(
          `sample ${this.samples}: ${key} position ${position} (unsettled_net ${row.unsettled_net} + reserved ${row.reserved}) above cap ${row.cap} by ${position - row.cap} (last cycle ${row.last_cycle_id ?? 'none'})`,
        );
      }
      this.capped.set(key, seen);
    }
  }

  private example(text: string): void {
    if (this.examples.length < 8) this.examples.push(text);
  }
}

/** What the net debit checks found, for the report and the evidence table. */
export interface NetDebitFindings {
  cap: CapSet;
  sampler: PositionSampler;
  /** Reservations once quiet, and those no unfinished movement owns. */
  reservations: number;
  leftOver: string[];
  /** Position rows once quiet, and those not equal to their obligations plus reservations. */
  positions: number;
  unequal: string[];
  /** Payments refused by the cap, by kind (orders: their movement FAILED with NET_DEBIT_CAP_EXCEEDED). */
  refused: { sessions: number; charges: number; orders: number };
}

/** Payment kinds whose final statuses end a movement (the engine's kinds and their tables). */
const MOVEMENTS: Record<string, { table: string; final: string[] }> = {
  session: { table: 'payments.payment_sessions', final: ['COMPLETED', 'FAILED', 'EXPIRED'] },
  mandate_charge: { table: 'payments.mandate_charges', final: ['COMPLETED', 'FAILED'] },
  payment_order: { table: 'payments.order_movements', final: ['COMPLETED', 'FAILED'] },
  refund: { table: 'payments.refunds', final: ['COMPLETED', 'FAILED'] },
};

/**
 * Invariant B once quiet, and the refused sessions: reads the reservations with their executions
 * and movements, the positions beside their obligations and reservations, and the cores' bookings
 * of the sessions the cap refused.
 */
export async function checkNetDebit(
  knex: Knex,
  run: {
    cap: CapSet;
    sampler: PositionSampler;
    refusedSessions: readonly string[];
    refusedCharges: number;
    orderIds: readonly string[];
  },
): Promise<{ checks: Check[]; findings: NetDebitFindings }> {
  const { cap, sampler } = run;
  const reservations: Array<{ movement_id: string; amount: string; step: string | null; kind: string | null }> =
    await knex('payments.position_reservations as r')
      .leftJoin('payments.payment_executions as e', 'e.movement_id', 'r.movement_id')
      .select('r.movement_id', 'r.amount', 'e.step', 'e.kind');
  const leftOver: string[] = [];
  for (const reservation of reservations) {
    const movement = MOVEMENTS[reservation.kind ?? ''];
    const status = movement
      ? ((await knex(movement.table).where('id', reservation.movement_id).first('status'))?.status as
          string | undefined)
      : undefined;
    const owned =
      reservation.step !== null &&
      reservation.step !== 'done' &&
      status !== undefined &&
      !movement!.final.includes(status);
    if (!owned)
      leftOver.push(
        `${reservation.movement_id} (${reservation.amount}): execution ${reservation.step ?? 'none'}, movement ${status ?? 'none'}`,
      );
  }
  const positions = await readPositions(knex);
  const unequal = positions.map(mismatchOf).filter((m): m is string => m !== undefined);

  // A session the cap refused wrote nothing and moved nothing: no execution, no reservation, no booking at any core.
  const refusedSessions = [...run.refusedSessions];
  const executions = refusedSessions.length
    ? await knex('payments.payment_executions').whereIn('movement_id', refusedSessions).select('movement_id')
    : [];
  const booked = refusedSessions.length
    ? await knex('bank_sandbox.transactions')
        .whereRaw(`split_part("reference", ':', 1) = any(?)`, [refusedSessions])
        .select('bank_handle', 'reference')
    : [];
  const refusedStatus: Array<{ status: string }> = refusedSessions.length
    ? await knex('payments.payment_sessions').whereIn('id', refusedSessions).select('status')
    : [];
  const movedAnyway = refusedStatus.filter((s) => s.status !== 'EXPIRED' && s.status !== 'PENDING').length;
  const orders = run.orderIds.length
    ? await knex('payments.order_movements')
        .whereIn('id', [...run.orderIds])
        .where('failure_code', 'NET_DEBIT_CAP_EXCEEDED')
        .count<{ count: string }[]>('* as count')
    : [{ count: '0' }];

  const { capped } = sampler;
  const maxima = [...capped.values()];
  const checks: Check[] = [
    {
      name: 'net debit positions never above their cap (sampled)',
      ok: sampler.aboveCap === 0 && sampler.samples > 0 && maxima.length > 0,
      figure: `${sampler.samples} samples every ${SAMPLE_EVERY_MS / 1000} s${sampler.unread ? ` (${sampler.unread} not read)` : ''}: ${maxima.map((m) => `${m.key} max ${m.max} vs cap ${m.cap}, ${m.above} above`).join('; ') || 'no capped position'}; reserved at most ${sampler.maxReserved}`,
    },
    {
      name: 'net debit reservations all owned and positions equal obligations plus reservations',
      ok: leftOver.length === 0 && unequal.length === 0 && sampler.mismatches === 0,
      figure: `quiet: ${leftOver.length} of ${reservations.length} reservations without an unfinished movement${leftOver.length ? ` (${leftOver.slice(0, 5).join('; ')})` : ''}, ${unequal.length} of ${positions.length} positions not equal${unequal.length ? ` (${unequal.slice(0, 3).join('; ')})` : ''}; sampled: ${sampler.mismatches} rows not equal over ${sampler.samples} samples`,
    },
    {
      name: 'sessions refused by a net debit cap moved nothing',
      ok: executions.length === 0 && booked.length === 0 && movedAnyway === 0,
      figure: `${refusedSessions.length} refused: ${executions.length} with an execution, ${booked.length} bookings at the cores, ${movedAnyway} neither PENDING nor EXPIRED`,
    },
  ];
  if (sampler.examples.length) log(`net debit positions, first findings: ${sampler.examples.join('; ')}`);
  return {
    checks,
    findings: {
      cap,
      sampler,
      reservations: reservations.length,
      leftOver,
      positions: positions.length,
      unequal,
      refused: { sessions: refusedSessions.length, charges: run.refusedCharges, orders: Number(orders[0]!.count) },
    },
  };
}
