import { Migration } from '@gateway/db';

/**
 * The engine executes Open Banking payment orders as it executes sessions: an execution row
 * says whose movement it is (kind), and order_movements holds a payment order's movement
 * (requested by open-banking over the bus, keyed by the order's po_ id). The status check
 * mirrors order-movement.transitions.ts.
 */
export class Migration20261129000100_order_movements extends Migration {
  override async up(): Promise<void> {
    // session_id is now a session's or a payment order's id (kind says which), so it can no longer
    // reference payment_sessions alone; each kind's row is created in the execution's own transaction.
    this.addSql(
      `alter table "payments"."payment_executions" drop constraint if exists "payment_executions_session_id_fkey";`,
    );
    this.addSql(`alter table "payments"."payment_executions"
      add column "kind" text not null default 'session',
      add constraint "payment_executions_kind_check" check ("kind" in ('session', 'payment_order'));`);
    this.addSql(`create table "payments"."order_movements" (
      "id" text not null primary key,
      "tpp_id" text not null,
      "status" text not null,
      "debtor_bank" text not null,
      "debtor_iban" text not null,
      "creditor_bank" text not null,
      "creditor_iban" text not null,
      "amount" bigint not null,
      "currency" text not null,
      "description" text null,
      "settlement_type" text not null,
      "failure_code" text null,
      "failure_detail" text null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      "settlement_pending_at" timestamptz null,
      "completed_at" timestamptz null,
      "failed_at" timestamptz null,
      constraint "order_movements_status_check" check ("status" in ('PROCESSING', 'SETTLEMENT_PENDING', 'COMPLETED', 'FAILED')),
      constraint "order_movements_settlement_type_check" check ("settlement_type" in ('internal', 'rail')),
      constraint "order_movements_amount_check" check ("amount" > 0));`);
  }
}
