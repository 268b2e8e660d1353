import { Migration } from '@gateway/db';

/**
 * Payment sessions and everything that moves their money: the engine's persisted steps (so a
 * restarted process resumes with the same core references), Idempotency-Keys, rail credit
 * confirmations and the interbank obligations settlement nets later. Amounts are bigint minor units.
 */
export class Migration20261124000100_payment_sessions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "payments"."payment_sessions" (
      "id" text not null primary key,
      "merchant_id" text not null,
      "status" text not null,
      "amount" bigint not null,
      "currency" text not null,
      "destination_type" text not null,
      "destination_value" text not null,
      "creditor_iban" text not null,
      "creditor_bank" text not null,
      "description" text null,
      "reference" text null,
      "redirect_url" text null,
      "webhook_url" text null,
      "checkout_url" text not null,
      "expires_at" timestamptz not null,
      "debtor_bank" text null,
      "settlement_type" text null,
      "failure_code" text null,
      "failure_detail" text null,
      "otp_failures" integer not null default 0,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      "processing_at" timestamptz null,
      "settlement_pending_at" timestamptz null,
      "completed_at" timestamptz null,
      "failed_at" timestamptz null,
      "expired_at" timestamptz null,
      constraint "payment_sessions_status_check" check ("status" in ('PENDING', 'PROCESSING', 'SETTLEMENT_PENDING', 'COMPLETED', 'FAILED', 'EXPIRED')),
      constraint "payment_sessions_amount_check" check ("amount" > 0),
      constraint "payment_sessions_currency_check" check ("currency" in ('LYD', 'USD', 'EUR')),
      constraint "payment_sessions_destination_type_check" check ("destination_type" in ('alias', 'iban')),
      constraint "payment_sessions_settlement_type_check" check ("settlement_type" in ('internal', 'rail')));`);
    // Keyset pagination: a merchant's sessions newest first, ties broken by id.
    this.addSql(
      `create index "payment_sessions_merchant_page_index" on "payments"."payment_sessions" ("merchant_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "payment_sessions_pending_expiry_index" on "payments"."payment_sessions" ("expires_at") where "status" = 'PENDING';`,
    );

    this.addSql(`create table "payments"."payment_executions" (
      "session_id" text not null primary key references "payments"."payment_sessions" ("id"),
      "step" text not null,
      "payer_type" text not null,
      "payer_value" text not null,
      "debtor_iban" text not null,
      "lease_until" timestamptz not null,
      "attempts" integer not null default 0,
      "pending_failure_code" text null,
      "pending_failure_detail" text null,
      "last_error" text null,
      "debit_booked_at" timestamptz null,
      "debit_transaction_id" text null,
      "credit_booked_at" timestamptz null,
      "credit_transaction_id" text null,
      "reversal_booked_at" timestamptz null,
      "reversal_transaction_id" text null,
      "rrn" text null,
      "confirmed_at" timestamptz null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "payment_executions_step_check" check ("step" in ('debit', 'credit', 'confirm', 'reverse', 'resolve_debit', 'done')));`);
    this.addSql(
      `create index "payment_executions_due_index" on "payments"."payment_executions" ("lease_until") where "step" in ('debit', 'credit', 'reverse', 'resolve_debit');`,
    );

    this.addSql(`create table "payments"."idempotency_keys" (
      "merchant_id" text not null,
      "key" text not null,
      "request_hash" text not null,
      "status" text not null,
      "response" jsonb null,
      "created_at" timestamptz not null,
      "locked_until" timestamptz not null,
      constraint "idempotency_keys_pkey" primary key ("merchant_id", "key"),
      constraint "idempotency_keys_status_check" check ("status" in ('in_flight', 'done')));`);
    this.addSql(`create index "idempotency_keys_created_at_index" on "payments"."idempotency_keys" ("created_at");`);

    this.addSql(`create table "payments"."interbank_obligations" (
      "id" text not null primary key,
      "session_id" text not null,
      "debtor_bank" text not null,
      "creditor_bank" text not null,
      "amount" bigint not null,
      "currency" text not null,
      "created_at" timestamptz not null,
      "settlement_cycle_id" text null,
      constraint "interbank_obligations_session_unique" unique ("session_id"),
      constraint "interbank_obligations_amount_check" check ("amount" > 0),
      constraint "interbank_obligations_banks_check" check ("debtor_bank" <> "creditor_bank"));`);
    this.addSql(
      `create index "interbank_obligations_unsettled_index" on "payments"."interbank_obligations" ("created_at") where "settlement_cycle_id" is null;`,
    );

    this.addSql(`create table "payments"."credit_confirmations" (
      "id" bigserial primary key,
      "payment_reference" text not null,
      "session_id" text not null,
      "bank_handle" text not null,
      "creditor_iban" text not null,
      "amount" bigint not null,
      "currency" text not null,
      "rrn" text not null,
      "outcome" text not null,
      "reason" text null,
      "received_at" timestamptz not null,
      constraint "credit_confirmations_outcome_check" check ("outcome" in ('accepted', 'refused')));`);
    // Deduplication by payment_reference: one accepted confirmation each; refusals are kept for the audit trail.
    this.addSql(
      `create unique index "credit_confirmations_accepted_unique" on "payments"."credit_confirmations" ("payment_reference") where "outcome" = 'accepted';`,
    );
  }
}
