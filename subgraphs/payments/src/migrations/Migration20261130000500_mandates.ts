import { Migration } from '@gateway/db';

/** Recurring mandates and their charges (API-CONTRACT "Mandates"). */
export class Migration20261130000500_mandates extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "payments"."mandates" (
      "id" text not null primary key,
      "merchant_id" text not null,
      "status" text not null,
      "customer_alias" text not null,
      "customer_iban" text not null,
      "customer_bank" text not null,
      "customer_ref" text not null,
      "amount" bigint not null,
      "currency" text not null,
      "interval" text not null,
      "description" text null,
      "start_date" text not null,
      "confirm_url" text not null,
      "otp_failures" integer not null default 0,
      "confirmation_hash" text null,
      "accepted_at" timestamptz null,
      "accepted_ip" text null,
      "accepted_user_agent" text null,
      "revoked_by" text null,
      "clock_offset_days" integer not null default 0,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      "confirmed_at" timestamptz null,
      "cancelled_at" timestamptz null,
      "failed_at" timestamptz null,
      constraint "mandates_status_check" check ("status" in ('PENDING_CONFIRMATION', 'ACTIVE', 'CANCELLED', 'FAILED')),
      constraint "mandates_interval_check" check ("interval" in ('weekly', 'monthly', 'yearly')),
      constraint "mandates_amount_check" check ("amount" > 0));`);
    this.addSql(
      `create index "mandates_merchant_index" on "payments"."mandates" ("merchant_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(`create table "payments"."mandate_charges" (
      "id" text not null primary key,
      "mandate_id" text not null references "payments"."mandates" ("id"),
      "merchant_id" text not null,
      "status" text not null,
      "amount" bigint not null,
      "currency" text not null,
      "reference" text not null,
      "period_start" text not null,
      "debtor_bank" text not null,
      "debtor_iban" text not null,
      "creditor_bank" text not null,
      "creditor_iban" text not null,
      "settlement_type" text not null,
      "description" text null,
      "failure_code" text null,
      "failure_detail" text null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      "settlement_pending_at" timestamptz null,
      "completed_at" timestamptz null,
      "failed_at" timestamptz null,
      constraint "mandate_charges_status_check" check ("status" in ('PROCESSING', 'SETTLEMENT_PENDING', 'COMPLETED', 'FAILED')),
      constraint "mandate_charges_amount_check" check ("amount" > 0));`);
    // One live charge per interval period: of two racing charges one inserts; a FAILED one frees its period.
    this.addSql(
      `create unique index "mandate_charges_period_unique" on "payments"."mandate_charges" ("mandate_id", "period_start") where "status" <> 'FAILED';`,
    );
    this.addSql(
      `create index "mandate_charges_mandate_index" on "payments"."mandate_charges" ("mandate_id", "created_at" desc, "id" desc);`,
    );
    // The engine executes charges too.
    this.addSql(`alter table "payments"."payment_executions" drop constraint "payment_executions_kind_check";`);
    this.addSql(
      `alter table "payments"."payment_executions" add constraint "payment_executions_kind_check" check ("kind" in ('session', 'payment_order', 'mandate_charge'));`,
    );
  }
}
