import { Migration } from '@gateway/db';
import { outboxAggregateSequenceSql } from '@gateway/events';

/**
 * Events in order per aggregate: each outbox event's place among its session's (or mandate's)
 * events, and each webhook delivery's, so a delivery waits for the earlier ones of its aggregate.
 */
export class Migration20261130000400_event_order extends Migration {
  override async up(): Promise<void> {
    for (const sql of outboxAggregateSequenceSql('payments')) this.addSql(sql);
    this.addSql(`alter table "payments"."webhook_deliveries" add column "sequence" integer null;`);
    this.addSql(
      `create index "webhook_deliveries_aggregate_index" on "payments"."webhook_deliveries" ("audience_id", "aggregate_id", "sequence");`,
    );
  }
}
