import { Migration } from '@gateway/db';

/**
 * Settlement cycles and their net positions (API-CONTRACT "Settlement"). A position's core
 * reference is unique: no two positions can ever book the same movement. Obligations get an
 * index on their cycle (a cycle's statement, the unsettled-obligations gauge).
 */
export class Migration20261128000100_settlement extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "payments"."settlement_cycles" (
      "id" text not null primary key,
      "status" text not null,
      "trigger" text not null,
      "request_id" text null,
      "obligation_count" integer not null default 0,
      "opened_at" timestamptz not null,
      "closed_at" timestamptz null,
      "settled_at" timestamptz null,
      "updated_at" timestamptz not null,
      constraint "settlement_cycles_status_check" check ("status" in ('OPEN', 'SETTLING', 'SETTLED', 'PARTIALLY_FAILED')));`);
    this.addSql(
      `create index "settlement_cycles_opened_index" on "payments"."settlement_cycles" ("opened_at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "settlement_cycles_unsettled_index" on "payments"."settlement_cycles" ("id") where "status" <> 'SETTLED';`,
    );
    this.addSql(`create table "payments"."settlement_positions" (
      "cycle_id" text not null references "payments"."settlement_cycles" ("id"),
      "bank_handle" text not null,
      "currency" text not null,
      "net_amount" bigint not null,
      "status" text not null,
      "core_reference" text not null,
      "settlement_iban" text null,
      "attempts" integer not null default 0,
      "lease_until" timestamptz not null,
      "unknown_since" timestamptz null,
      "replays" integer not null default 0,
      "last_error" text null,
      "core_transaction_id" text null,
      "settled_at" timestamptz null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      primary key ("cycle_id", "bank_handle", "currency"),
      constraint "settlement_positions_reference_unique" unique ("core_reference"),
      constraint "settlement_positions_net_check" check ("net_amount" <> 0),
      constraint "settlement_positions_status_check" check ("status" in ('PENDING', 'SETTLED', 'FAILED')));`);
    this.addSql(
      `create index "settlement_positions_due_index" on "payments"."settlement_positions" ("lease_until") where "status" <> 'SETTLED';`,
    );
    this.addSql(
      `create index "settlement_positions_bank_index" on "payments"."settlement_positions" ("bank_handle", "cycle_id");`,
    );
    this.addSql(
      `create index "interbank_obligations_cycle_index" on "payments"."interbank_obligations" ("settlement_cycle_id", "debtor_bank", "creditor_bank", "currency") where "settlement_cycle_id" is not null;`,
    );
  }
}
