import { Migration } from '@gateway/db';

/**
 * Issue 46, "Suspension holds webhooks" and "Replay within bounds":
 * - a delivery to an owner an operator suspended waits as HELD (neither sent, failed nor retried)
 *   and is released on resume: the status check widens, and the claim finds what to release by
 *   its owner among the (normally no) HELD rows. Retention keeps a HELD delivery, as a PENDING one.
 * - `replayed_at`: a replay queued the delivery and its attempt has not been recorded yet; while
 *   an endpoint has one, another replay of it is refused (409).
 * - `webhook_replay_budgets`: each owner's replay budget, one point per event a replay sends
 *   (a token bucket: `tokens` as of `updated_at`).
 */
export class Migration20261228000100_webhook_held_and_replays extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "payments"."webhook_deliveries" drop constraint if exists "webhook_deliveries_status_check";`,
    );
    this.addSql(
      `alter table "payments"."webhook_deliveries" add constraint "webhook_deliveries_status_check" check ("status" in ('PENDING', 'HELD', 'DELIVERED', 'FAILED'));`,
    );
    this.addSql(
      `create index "webhook_deliveries_held_index" on "payments"."webhook_deliveries" ("audience_id") where "status" = 'HELD';`,
    );
    // The claim goes from the few suspended owners to their due deliveries, not through every due one.
    this.addSql(
      `create index "webhook_deliveries_owner_due_index" on "payments"."webhook_deliveries" ("audience_id", "next_attempt_at") where "status" = 'PENDING';`,
    );
    this.addSql(`alter table "payments"."webhook_deliveries" add column "replayed_at" timestamptz null;`);
    this.addSql(
      `create index "webhook_deliveries_replaying_index" on "payments"."webhook_deliveries" ("endpoint_id", "replayed_at") where "replayed_at" is not null;`,
    );
    this.addSql(`create table "payments"."webhook_replay_budgets" (
      "audience_id" text not null primary key,
      "tokens" double precision not null,
      "updated_at" timestamptz not null);`);
  }
}
