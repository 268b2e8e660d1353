import { Migration } from '@gateway/db';

/**
 * The engine establishes the truth of a movement whose outcome is unknown (replays, then the
 * core's statement) within a deadline, and hands what it cannot settle to an operator: the
 * "needs attention" step. A rail credit awaiting confirmation is re-sent when its lease (the
 * re-send timer) runs out, so 'confirm' joins the steps the recovery job picks up. The request
 * id of the authorization travels with the movement into every core call, retries and recovery
 * included.
 */
export class Migration20261125000100_engine_outcomes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "payments"."payment_executions"
      add column "unknown_since" timestamptz null,
      add column "replays" integer not null default 0,
      add column "attention_step" text null,
      add column "attention_reason" text null,
      add column "attention_since" timestamptz null,
      add column "resolution" text null,
      add column "resolved_at" timestamptz null,
      add column "request_id" text null;`);
    this.addSql(`alter table "payments"."payment_executions" drop constraint "payment_executions_step_check";`);
    this.addSql(`alter table "payments"."payment_executions" add constraint "payment_executions_step_check"
      check ("step" in ('debit', 'credit', 'confirm', 'reverse', 'resolve_debit', 'attention', 'done'));`);
    this.addSql(`drop index "payments"."payment_executions_due_index";`);
    this.addSql(
      `create index "payment_executions_due_index" on "payments"."payment_executions" ("lease_until") where "step" in ('debit', 'credit', 'confirm', 'reverse', 'resolve_debit');`,
    );
    this.addSql(
      `create index "payment_executions_attention_index" on "payments"."payment_executions" ("attention_since", "session_id") where "step" = 'attention';`,
    );
  }
}
