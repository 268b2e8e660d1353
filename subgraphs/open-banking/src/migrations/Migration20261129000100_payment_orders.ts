import { Migration } from '@gateway/db';

/**
 * TPP payment orders and their Idempotency-Keys. The status check mirrors
 * payment-order.transitions.ts; the partial index serves the sweeper's scan of orders waiting
 * for the payments engine's answer.
 */
export class Migration20261129000100_payment_orders extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "open_banking"."payment_orders" (
      "id" text not null primary key,
      "tpp_id" text not null references "open_banking"."tpps" ("id"),
      "consent_id" text not null references "open_banking"."consents" ("id"),
      "source_account_id" text not null references "open_banking"."consent_accounts" ("id"),
      "debtor_iban" text not null,
      "debtor_bank" text not null,
      "destination_type" text not null,
      "creditor_iban" text not null,
      "creditor_bank" text not null,
      "amount" bigint not null,
      "currency" text not null,
      "description" text null,
      "status" text not null,
      "sca_url" text null,
      "failure_code" text null,
      "failure_detail" text null,
      "settlement_type" text null,
      "request_id" text null,
      "movement_requested_at" timestamptz null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      "processing_at" timestamptz null,
      "completed_at" timestamptz null,
      "failed_at" timestamptz null,
      "rejected_at" timestamptz null,
      constraint "payment_orders_status_check" check ("status" in ('PENDING_SCA', 'PROCESSING', 'COMPLETED', 'FAILED', 'REJECTED')),
      constraint "payment_orders_amount_check" check ("amount" > 0));`);
    this.addSql(
      `create index "payment_orders_awaiting_movement_index" on "open_banking"."payment_orders" ("movement_requested_at") where "status" = 'PROCESSING';`,
    );
    this.addSql(
      `create index "payment_orders_pending_sca_index" on "open_banking"."payment_orders" ("created_at") where "status" = 'PENDING_SCA';`,
    );
    this.addSql(`create table "open_banking"."idempotency_keys" (
      "tpp_id" text not null,
      "key" text not null,
      "request_hash" text not null,
      "status" text not null,
      "payment_order_id" text null,
      "created_at" timestamptz not null,
      "locked_until" timestamptz not null,
      constraint "idempotency_keys_pkey" primary key ("tpp_id", "key"),
      constraint "idempotency_keys_status_check" check ("status" in ('in_flight', 'done')));`);
  }
}
