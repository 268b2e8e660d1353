import { Migration } from '@gateway/db';

/**
 * Customers (OTPs), accounts and transactions of every sandbox bank, keyed by bank handle. In the
 * ORM's schema: `bank_sandbox` for the sandbox banks, `test_banks` for the built-in test bank.
 */
export class Migration20250601000000Ledger extends Migration {
  override async up(): Promise<void> {
    const t = quotedSchema(this.config.get('schema'));
    this.addSql(`create table ${t}."customers" (
      "bank_handle" text not null,
      "customer_ref" text not null,
      "otp_hash" text null,
      "created_at" timestamptz not null,
      constraint "customers_pkey" primary key ("bank_handle", "customer_ref"));`);
    this.addSql(`create table ${t}."accounts" (
      "id" text not null primary key,
      "bank_handle" text not null,
      "iban" text not null,
      "customer_ref" text not null,
      "holder_name" text not null,
      "currency" text not null,
      "balance" bigint not null check ("balance" >= 0),
      "created_at" timestamptz not null,
      constraint "accounts_bank_handle_iban_unique" unique ("bank_handle", "iban"));`);
    this.addSql(
      `create index "accounts_bank_handle_customer_ref_index" on ${t}."accounts" ("bank_handle", "customer_ref");`,
    );
    this.addSql(`create table ${t}."transactions" (
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
    this.addSql(
      `create index "transactions_bank_handle_iban_booked_at_index" on ${t}."transactions" ("bank_handle", "iban", "booked_at");`,
    );
    this.addSql(
      `create index "transactions_pending_confirmation_index" on ${t}."transactions" ("bank_handle") where "confirmation_status" = 'PENDING';`,
    );
  }

  override async down(): Promise<void> {
    const t = quotedSchema(this.config.get('schema'));
    this.addSql(`drop table if exists ${t}."transactions";`);
    this.addSql(`drop table if exists ${t}."accounts";`);
    this.addSql(`drop table if exists ${t}."customers";`);
  }
}

/** The ORM always names its schema (sandboxOrm); a missing one would create tables in `public`. */
export function quotedSchema(schema: string | undefined): string {
  if (!schema) throw new Error('sandbox ledger migration: the ORM has no schema');
  return `"${schema}"`;
}
