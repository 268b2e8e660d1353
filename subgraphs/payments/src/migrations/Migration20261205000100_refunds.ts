import { Migration } from '@gateway/db';

/**
 * Refunds of payment sessions (API-CONTRACT "Refunds and ending a session early"): a movement the
 * payment engine executes (kind refund), and the amount of each session given back by refunds
 * not FAILED, which a check keeps within the session amount whatever the code does.
 */
export class Migration20261205000100_refunds extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "payments"."payment_sessions" add column "amount_refunded" bigint not null default 0;`);
    this.addSql(
      `alter table "payments"."payment_sessions" add constraint "payment_sessions_amount_refunded_check" check ("amount_refunded" >= 0 and "amount_refunded" <= "amount");`,
    );
    this.addSql(`create table "payments"."refunds" (
      "id" text not null primary key,
      "session_id" text not null references "payments"."payment_sessions" ("id"),
      "merchant_id" text not null,
      "livemode" boolean not null,
      "status" text not null,
      "amount" bigint not null,
      "currency" text not null,
      "reason" text null,
      "reference" text null,
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
      constraint "refunds_status_check" check ("status" in ('PROCESSING', 'SETTLEMENT_PENDING', 'COMPLETED', 'FAILED')),
      constraint "refunds_settlement_type_check" check ("settlement_type" in ('internal', 'rail')),
      constraint "refunds_amount_check" check ("amount" > 0));`);
    this.addSql(
      `create index "refunds_session_index" on "payments"."refunds" ("session_id", "created_at" desc, "id" desc);`,
    );
    // The engine executes refunds too.
    this.addSql(`alter table "payments"."payment_executions" drop constraint "payment_executions_kind_check";`);
    this.addSql(
      `alter table "payments"."payment_executions" add constraint "payment_executions_kind_check" check ("kind" in ('session', 'payment_order', 'mandate_charge', 'refund'));`,
    );
  }
}
