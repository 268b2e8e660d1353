import { Migration } from '@gateway/db';

/**
 * Variable recurring payments (issue 51) as the engine's fifth movement kind: open-banking
 * requests each VRP payment as it requests a payment order (movement.requested, keyed by the
 * payment's vrp_ id), and vrp_movements holds its movement. The table is order_movements as it
 * is today (its creation and the livemode column added since, without a default: a writer that
 * forgets the world fails loudly); its status check mirrors vrp-movement.transitions.ts. The
 * executions' kind check widens to the new kind.
 */
export class Migration20270101000100_vrp_movements extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "payments"."vrp_movements" (
      "id" text not null primary key,
      "tpp_id" text not null,
      "livemode" boolean not null,
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
      constraint "vrp_movements_status_check" check ("status" in ('PROCESSING', 'SETTLEMENT_PENDING', 'COMPLETED', 'FAILED')),
      constraint "vrp_movements_settlement_type_check" check ("settlement_type" in ('internal', 'rail')),
      constraint "vrp_movements_amount_check" check ("amount" > 0));`);
    this.addSql(`alter table "payments"."payment_executions" drop constraint "payment_executions_kind_check";`);
    this.addSql(
      `alter table "payments"."payment_executions" add constraint "payment_executions_kind_check" check ("kind" in ('session', 'payment_order', 'mandate_charge', 'refund', 'vrp_payment'));`,
    );
  }
}
