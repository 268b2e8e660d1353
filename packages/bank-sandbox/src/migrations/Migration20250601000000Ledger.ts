import { Migration } from '@gateway/db';

/** Customers (OTPs), accounts and transactions of every sandbox bank, keyed by bank handle. */
export class Migration20250601000000Ledger extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "bank_sandbox"."customers" (
      "bank_handle" text not null,
      "customer_ref" text not null,
      "otp_hash" text null,
      "created_at" timestamptz not null,
      constraint "customers_pkey" primary key ("bank_handle", "customer_ref"));`);
    this.addSql(`create table "bank_sandbox"."accounts" (
      "id" text not null primary key,
      "bank_handle" text not null,
      "iban" text not null,
      "customer_ref" text not null,
      "holder_name" text not null,
      "currency" text not null,
      "balance" bigint not null check ("balance" >= 0),
      "created_at" timestamptz not null,
      constraint "accounts_bank_handle_iban_unique" unique ("bank_handle", "iban"));`);
    this.addSql(`create index "accounts_bank_handle_customer_ref_index" on "bank_sandbox"."accounts" ("bank_handle", "customer_ref");`);
    this.addSql(`create table "bank_sandbox"."transactions" (
      "transaction_id" text not null primary key,
      "bank_handle" text not null,
      "operation" text not null check ("operation" in ('DEBIT', 'CREDIT')),
      "reference" text not null,
      "iban" text not null,
      "amount" bigint not null check ("amount" > 0),
      "currency" text not null,
      "description" text not null,
      "debtor_bank" text null,
      "session_id" text null,
      "rrn" text null,
      "balance_after" bigint null,
      "booked_at" timestamptz not null,
      "confirmation_status" text null check ("confirmation_status" in ('PENDING', 'CONFIRMED', 'REJECTED', 'FAILED')),
      "confirmation_attempts" integer not null default 0,
      "confirmed_at" timestamptz null,
      constraint "transactions_bank_handle_operation_reference_unique" unique ("bank_handle", "operation", "reference"));`);
    this.addSql(`create index "transactions_bank_handle_iban_booked_at_index" on "bank_sandbox"."transactions" ("bank_handle", "iban", "booked_at");`);
    this.addSql(`create index "transactions_pending_confirmation_index" on "bank_sandbox"."transactions" ("bank_handle") where "confirmation_status" = 'PENDING';`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists "bank_sandbox"."transactions";');
    this.addSql('drop table if exists "bank_sandbox"."accounts";');
    this.addSql('drop table if exists "bank_sandbox"."customers";');
  }
}
