import { Migration } from '@gateway/db';

/**
 * Issue 48, net debit caps:
 * - `net_debit_positions`: one row per bank, currency and world: the operator's cap (null: none),
 *   its alert thresholds, the unsettled net (owed minus owed to it, obligations no cycle has taken
 *   yet) and the reservations of movements in flight. The conditional reservation locks this row.
 * - `position_reservations`: what each unfinished cross-bank movement holds on its debtor's row,
 *   one row per movement, so its ending uses or releases it exactly once (the row's delete) and
 *   "every reservation is owned by an unfinished movement" is a join away.
 * The unsettled net starts from the obligations waiting for a cycle, so positions are right at once.
 */
export class Migration20261229000100_net_debit_positions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "payments"."net_debit_positions" (
      "bank_handle" text not null,
      "currency" text not null,
      "livemode" boolean not null,
      "net_debit_cap" bigint null check ("net_debit_cap" >= 0),
      "alert_thresholds" integer[] not null default '{80,100}',
      "liquidity_cover" boolean not null default false,
      "unsettled_net" bigint not null default 0,
      "reserved" bigint not null default 0 check ("reserved" >= 0),
      "last_cycle_id" text null,
      "updated_at" timestamptz not null,
      primary key ("bank_handle", "currency", "livemode"));`);
    this.addSql(`create table "payments"."position_reservations" (
      "movement_id" text not null primary key,
      "bank_handle" text not null,
      "currency" text not null,
      "livemode" boolean not null,
      "amount" bigint not null check ("amount" > 0),
      "created_at" timestamptz not null);`);
    this
      .addSql(`insert into "payments"."net_debit_positions" ("bank_handle", "currency", "livemode", "unsettled_net", "updated_at")
      select "bank", "currency", "livemode", sum("owed"), now() from (
        select "debtor_bank" as "bank", "currency", "livemode", "amount" as "owed" from "payments"."interbank_obligations" where "settlement_cycle_id" is null
        union all
        select "creditor_bank", "currency", "livemode", -"amount" from "payments"."interbank_obligations" where "settlement_cycle_id" is null) sides
      group by "bank", "currency", "livemode";`);
  }
}
