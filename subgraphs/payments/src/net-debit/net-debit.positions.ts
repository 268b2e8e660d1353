import type { EntityManager } from '@mikro-orm/postgresql';
import type { OneStatement } from '@gateway/db';
import { recordEvent, recordEventRowsIn } from '@gateway/events';
import { formatMoney, GatewayError, type Currency } from '@gateway/kernel';
import type { Movement } from '../movement/movement';
import { recordObligationIn } from '../obligation/obligation.service';
import { BANK_AUDIENCE_PREFIX, OPERATOR_AUDIENCE } from '../webhook/webhook-audience';

/**
 * The one writer of payments.net_debit_positions and payments.position_reservations (issue 48,
 * DESIGN "Risk controls: net debit caps"). Raw SQL throughout, next to the rows it bypasses the
 * ORM for: every write is an arithmetic upsert on one hot row (`reserved = reserved + ?` only
 * while under the cap), a part of the engine's OneStatement, which no flush can express; the
 * row lock of that upsert is what orders concurrent reservations of one bank.
 *
 * A bank's position in a currency and world = unsettled_net (what it owes minus what it is owed
 * in obligations no cycle has taken) + reserved (cross-bank movements in flight of which it is
 * the debtor). A movement's reservation is a row of its own, so the movement's ending uses it
 * (obligateIn) or gives it back (releaseIn) exactly once: whoever deletes the row moves the sum.
 *
 * What a reservation is checked against is the bank's exposure: greatest(unsettled_net, 0) +
 * reserved. What the bank is owed does not make room until a cycle has paid it: a cycle pays a
 * net creditor its credit while reservations made against that credit are still in flight, and
 * the position then rose above the cap (the chaos run's sampler saw 6,988 against a cap of 4,000
 * right after a cycle, seed 32055). Counting only what it owes, the position never passes the cap:
 * position <= exposure <= cap at every reservation, a booked obligation moves reserved into
 * unsettled_net (exposure the same or lower), a credit lowers it, and a cycle brings unsettled_net
 * to 0 (position = reserved <= exposure).
 */

/** A bank's exposure in SQL (p: its row): what the cap bounds. */
const EXPOSURE = `greatest(p."unsettled_net", 0) + p."reserved"`;

/** What the position rows need of a movement: its world, its two banks and its money. */
export type PositionedMovement = Pick<Movement, 'livemode' | 'debtorBank' | 'creditorBank' | 'amount' | 'currency'>;

/** At most this many alert thresholds per cap (the reservation's events are pre-numbered). */
export const MAX_ALERT_THRESHOLDS = 5;

/** A constant of this file as an SQL literal (recordEventRowsIn's select takes no bindings). */
const sqlText = (text: string): string => `'${text.replaceAll("'", "''")}'`;

/** Only a movement between two banks creates an obligation, so only it holds a position. */
const crossBank = (movement: PositionedMovement): movement is PositionedMovement & { debtorBank: string } =>
  movement.debtorBank !== null && movement.debtorBank !== movement.creditorBank;

/**
 * The engine's entry (PaymentEngine.startIn): reserves the movement's amount on its debtor bank's
 * row, only if part `when` (the movement's claim or insert) changed a row and only while
 * exposure + amount <= cap (no cap: always, so positions stay right). The upsert takes the row's
 * lock and re-checks the condition on the row as the last committed reservation left it, so of
 * any number of concurrent reservations exactly those that fit are admitted. One that does not
 * fit vetoes the whole statement: 422 NET_DEBIT_CAP_EXCEEDED, and the claim, the execution and
 * everything else of it are not written (nothing is debited: no execution, no core call).
 * A crossing of an alert threshold writes its events (the bank's and the operator's) in the same
 * statement (once per crossing: the position before is the position after minus this amount,
 * under the row lock).
 */
export function reserveIn(
  statement: OneStatement,
  movementId: string,
  movement: PositionedMovement,
  now: Date,
  when: string,
): void {
  if (!crossBank(movement)) return;
  const amount = movement.amount.toString();
  statement.sql(
    'position_reserved',
    `insert into "payments"."net_debit_positions" as p ("bank_handle", "currency", "livemode", "reserved", "updated_at")
     select ?, ?, ?, ?, ? where ${statement.changed(when)}
     on conflict ("bank_handle", "currency", "livemode") do update
       set "reserved" = p."reserved" + excluded."reserved", "updated_at" = excluded."updated_at"
       where p."net_debit_cap" is null or ${EXPOSURE} + excluded."reserved" <= p."net_debit_cap"
     returning p."bank_handle", p."currency", p."livemode", p."net_debit_cap", p."alert_thresholds",
       p."unsettled_net" + p."reserved" as "position", ${EXPOSURE} as "exposure"`,
    [movement.debtorBank, movement.currency, movement.livemode, amount, now],
  );
  statement.sql(
    'position_reservation',
    `insert into "payments"."position_reservations" ("movement_id", "bank_handle", "currency", "livemode", "amount", "created_at")
     select ?, ?, ?, ?, ?, ? where ${statement.changed('position_reserved')} returning 1`,
    [movementId, movement.debtorBank, movement.currency, movement.livemode, amount, now],
  );
  statement.veto(
    'over_cap',
    `${statement.changed(when)} and not ${statement.changed('position_reserved')}`,
    () =>
      new GatewayError(
        'NET_DEBIT_CAP_EXCEEDED',
        `${movement.debtorBank}'s position plus ${formatMoney(movement.amount, movement.currency)} would pass its net debit cap: nothing was debited`,
      ),
  );
  const reserved = statement.rows('position_reserved');
  // Threshold t is crossed when the exposure before (exposure - amount) was below t% of the cap
  // and the exposure now is at or above it; the cap itself is reached at headroom 0. Each crossing
  // is two events with the same data (API-CONTRACT: "Events to the operator and the bank, once per
  // crossing"): one for the bank (audience bank:<handle>) and one for the operator, each its own
  // aggregate, so that each receiver's sequence counts its own events only.
  const perAudience = MAX_ALERT_THRESHOLDS + 1;
  const position = `r."bank_handle" || ':' || r."currency"`;
  recordEventRowsIn(
    statement,
    'liquidity_events',
    2 * perAudience,
    `select t."kind", 'bank_position', u."aggregate_id", u."audience",
       jsonb_build_object('bank_handle', r."bank_handle", 'currency', r."currency", 'livemode', r."livemode",
         'threshold', t."pct", 'position', r."position", 'net_debit_cap', r."net_debit_cap"), t."ord" + u."offset"
     from ${reserved} r cross join lateral (
       select 'liquidity.threshold_reached' as "kind", a."pct", a."ord" from unnest(r."alert_thresholds") with ordinality as a("pct", "ord")
       union all select 'liquidity.cap_reached', 100, ${perAudience}) t
     cross join lateral (values (${sqlText(BANK_AUDIENCE_PREFIX)} || r."bank_handle", ${position}, 0),
       (${sqlText(OPERATOR_AUDIENCE)}, 'operator:' || ${position}, ${perAudience})) u("audience", "aggregate_id", "offset")
     where r."net_debit_cap" is not null and t."ord" <= ${perAudience}
       and r."exposure" * 100 >= t."pct" * r."net_debit_cap" and (r."exposure" - ?::bigint) * 100 < t."pct" * r."net_debit_cap"
     order by u."offset", t."ord"`,
    now,
    [amount],
  );
}

/**
 * The engine's ending where money moved between banks (the credit booked, or an operator's
 * CREDITED finding; the credit-confirmed callback may get there first): records the obligation
 * (obligation.service, once per movement) and, only in the statement that wrote it, turns the
 * movement's reservation into it: the debtor's reserved goes down by what was reserved and its
 * unsettled net up by the amount; the creditor's unsettled net goes down. A movement started
 * without a reservation (before caps existed) still gets its obligation counted.
 */
export function obligateIn(
  statement: OneStatement,
  movement: PositionedMovement & Pick<Movement, 'id'>,
  now: Date,
  when: string,
): void {
  recordObligationIn(statement, movement, now, when);
  if (!crossBank(movement)) return;
  const obligation = statement.changed('obligation');
  statement.sql(
    'reservation_used',
    `delete from "payments"."position_reservations" where "movement_id" = ? and ${obligation} returning "amount"`,
    [movement.id],
  );
  const used = `coalesce((select sum("amount") from ${statement.rows('reservation_used')}), 0)`;
  const amount = movement.amount.toString();
  const sides = [
    // The debtor's reservation becomes its obligation; the creditor is owed it.
    { name: 'debtor_obligated', bank: movement.debtorBank, net: amount, reserved: `p."reserved" - ${used}` },
    { name: 'creditor_obligated', bank: movement.creditorBank, net: `-${amount}`, reserved: `p."reserved"` },
  ];
  // Rows are locked in bank order, as a settlement cycle locks them: two movements in opposite
  // directions (or a cycle) can never each hold the row the other waits for.
  sides.sort((x, y) => (x.bank < y.bank ? -1 : x.bank > y.bank ? 1 : 0));
  for (const side of sides)
    statement.sql(
      side.name,
      `insert into "payments"."net_debit_positions" as p ("bank_handle", "currency", "livemode", "unsettled_net", "updated_at")
       select ?, ?, ?, ?, ? where ${obligation}
       on conflict ("bank_handle", "currency", "livemode") do update
         set "unsettled_net" = p."unsettled_net" + excluded."unsettled_net", "reserved" = ${side.reserved}, "updated_at" = excluded."updated_at"
       returning 1`,
      [side.bank, movement.currency, movement.livemode, side.net, now],
    );
}

/**
 * The engine's ending where no money moved between banks (the movement failed, its payer was
 * given the money back, an operator closed it): gives back what the movement reserved, if it
 * still holds anything (a same-bank movement never did), only if part `when` changed a row.
 */
export function releaseIn(statement: OneStatement, movementId: string, now: Date, when?: string): void {
  statement.sql(
    'reservation_released',
    `delete from "payments"."position_reservations" where "movement_id" = ?${when ? ` and ${statement.changed(when)}` : ''}
     returning "bank_handle", "currency", "livemode", "amount"`,
    [movementId],
  );
  statement.sql(
    'position_released',
    `update "payments"."net_debit_positions" p set "reserved" = p."reserved" - r."amount", "updated_at" = ?
     from ${statement.rows('reservation_released')} r
     where p."bank_handle" = r."bank_handle" and p."currency" = r."currency" and p."livemode" = r."livemode" returning 1`,
    [now],
  );
}

/**
 * A settlement cycle, in the transaction that books it (after it took its obligations): each
 * bank's unsettled net goes down by its net in the cycle, so what the cycle settles leaves the
 * position, and the row names the cycle.
 */
export async function lowerByCycle(tx: EntityManager, cycleId: string, livemode: boolean, now: Date): Promise<void> {
  await tx.execute(
    `insert into "payments"."net_debit_positions" as p ("bank_handle", "currency", "livemode", "unsettled_net", "last_cycle_id", "updated_at")
     select "bank", "currency", ?, -sum("owed"), ?, ? from (
       select "debtor_bank" as "bank", "currency", "amount" as "owed" from "payments"."interbank_obligations" where "settlement_cycle_id" = ?
       union all select "creditor_bank", "currency", -"amount" from "payments"."interbank_obligations" where "settlement_cycle_id" = ?) sides
     group by "bank", "currency" order by "bank", "currency"
     on conflict ("bank_handle", "currency", "livemode") do update
       set "unsettled_net" = p."unsettled_net" + excluded."unsettled_net", "last_cycle_id" = excluded."last_cycle_id", "updated_at" = excluded."updated_at"`,
    [livemode, cycleId, now, cycleId, cycleId],
  );
}

/** A cap as an operator sets it (NetDebitService validates it first). */
export interface CapSetting {
  bankHandle: string;
  currency: Currency;
  livemode: boolean;
  /** Minor units; null: no cap. */
  netDebitCap: bigint | null;
  alertThresholds: number[];
  liquidityCover: boolean;
}

/**
 * Sets (or, with netDebitCap null, removes) a cap, keeping the row's position as it is. A cap
 * change is rare and not part of any movement's statement, so it says so on the bus in its
 * transaction (internal: no webhook audience): the operator console's live positions follow it
 * (router bankPositionsUpdated, issue 50).
 */
export async function writeCap(tx: EntityManager, cap: CapSetting, now: Date): Promise<void> {
  recordEvent(
    tx,
    {
      kind: 'internal.net_debit_cap.changed',
      aggregateType: 'bank_position',
      aggregateId: `cap:${cap.bankHandle}:${cap.currency}`,
      data: {
        bank_handle: cap.bankHandle,
        currency: cap.currency,
        livemode: cap.livemode,
        net_debit_cap: cap.netDebitCap === null ? null : cap.netDebitCap.toString(),
      },
    },
    now,
  );
  await tx.execute(
    `insert into "payments"."net_debit_positions" as p ("bank_handle", "currency", "livemode", "net_debit_cap", "alert_thresholds", "liquidity_cover", "updated_at")
     values (?, ?, ?, ?, ?::integer[], ?, ?)
     on conflict ("bank_handle", "currency", "livemode") do update
       set "net_debit_cap" = excluded."net_debit_cap", "alert_thresholds" = excluded."alert_thresholds",
         "liquidity_cover" = excluded."liquidity_cover", "updated_at" = excluded."updated_at"`,
    [
      cap.bankHandle,
      cap.currency,
      cap.livemode,
      cap.netDebitCap === null ? null : cap.netDebitCap.toString(),
      `{${cap.alertThresholds.join(',')}}`,
      cap.liquidityCover,
      now,
    ],
  );
}

/** A position row as read: sums in minor units. */
export interface PositionRow {
  bankHandle: string;
  currency: Currency;
  livemode: boolean;
  netDebitCap: bigint | null;
  alertThresholds: number[];
  liquidityCover: boolean;
  unsettledNet: bigint;
  reserved: bigint;
  /** unsettledNet + reserved. */
  position: bigint;
  /** What the cap bounds: what it owes (never less than 0) + reserved. */
  exposure: bigint;
  lastCycleId: string | null;
  updatedAt: Date;
}

const POSITION_COLUMNS = `"bank_handle", "currency", "livemode", "net_debit_cap"::text as "cap", "alert_thresholds",
  "liquidity_cover", "unsettled_net"::text as "unsettled", "reserved"::text as "reserved", "last_cycle_id", "updated_at"`;

/** A bank's rows (one currency and world, or all), live first then by currency; `lock`: for update, in the caller's transaction. */
export async function readPositions(
  em: EntityManager,
  bankHandle: string,
  only?: { currency: Currency; livemode: boolean; lock?: boolean },
): Promise<PositionRow[]> {
  const rows: Array<Record<string, unknown>> = await em.execute(
    `select ${POSITION_COLUMNS}
     from "payments"."net_debit_positions" where "bank_handle" = ?${only ? ` and "currency" = ? and "livemode" = ?` : ''}
     order by "livemode" desc, "currency"${only?.lock ? ' for update' : ''}`,
    only ? [bankHandle, only.currency, only.livemode] : [bankHandle],
  );
  return rows.map(toPositionRow);
}

/** Every bank's rows: the metrics' scrape (a row per bank, currency and world: a few hundred at most). */
export async function everyPosition(em: EntityManager): Promise<PositionRow[]> {
  const rows: Array<Record<string, unknown>> = await em.execute(
    `select ${POSITION_COLUMNS} from "payments"."net_debit_positions" order by "bank_handle", "currency", "livemode"`,
  );
  return rows.map(toPositionRow);
}

function toPositionRow(row: Record<string, unknown>): PositionRow {
  const unsettledNet = BigInt(row.unsettled as string);
  const reserved = BigInt(row.reserved as string);
  return {
    bankHandle: row.bank_handle as string,
    currency: row.currency as Currency,
    livemode: row.livemode as boolean,
    netDebitCap: row.cap === null ? null : BigInt(row.cap as string),
    alertThresholds: (row.alert_thresholds as number[]).map(Number),
    liquidityCover: row.liquidity_cover as boolean,
    unsettledNet,
    reserved,
    position: unsettledNet + reserved,
    exposure: (unsettledNet > 0n ? unsettledNet : 0n) + reserved,
    lastCycleId: (row.last_cycle_id as string | null) ?? null,
    updatedAt: new Date(row.updated_at as string),
  };
}
