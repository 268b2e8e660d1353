import { Migration } from '@gateway/db';

/**
 * Issue 51 (variable recurring payments): a VRP consent's terms beside its consent row, and its
 * payments. A payment's period totals are read by consent and time (the index below), and the
 * sweeper finds payments still waiting for the engine's answer.
 */
export class Migration20270101000100_vrp extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "open_banking"."vrp_consent_terms" (
      "consent_id" text not null primary key references "open_banking"."consents" ("id") on delete cascade,
      "creditor_type" text not null check ("creditor_type" in ('iban', 'alias')),
      "creditor_value" text not null,
      "creditor_iban" text not null,
      "creditor_bank" text not null,
      "currency" text not null,
      "reference" text not null,
      "maximum_individual_amount" bigint not null check ("maximum_individual_amount" > 0),
      "periodic_limits" jsonb not null,
      "valid_from" timestamptz not null,
      "valid_to" timestamptz null,
      "payments_accepted" integer not null default 0
    );`);
    this.addSql(`create table "open_banking"."vrp_payments" (
      "id" text not null primary key,
      "consent_id" text not null references "open_banking"."consents" ("id"),
      "tpp_id" text not null,
      "livemode" boolean not null,
      "debtor_iban" text not null,
      "debtor_bank" text not null,
      "creditor_iban" text not null,
      "creditor_bank" text not null,
      "amount" bigint not null check ("amount" > 0),
      "currency" text not null,
      "reference" text not null,
      "status" text not null check ("status" in ('PROCESSING', 'COMPLETED', 'FAILED')),
      "failure_code" text null,
      "failure_detail" text null,
      "settlement_type" text null,
      "request_id" text null,
      "movement_requested_at" timestamptz null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      "completed_at" timestamptz null,
      "failed_at" timestamptz null
    );`);
    this.addSql(
      `create index "vrp_payments_consent_created_idx" on "open_banking"."vrp_payments" ("consent_id", "created_at");`,
    );
    this.addSql(
      `create index "vrp_payments_processing_idx" on "open_banking"."vrp_payments" ("movement_requested_at") where "status" = 'PROCESSING';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "open_banking"."vrp_payments";`);
    this.addSql(`drop table if exists "open_banking"."vrp_consent_terms";`);
  }
}
