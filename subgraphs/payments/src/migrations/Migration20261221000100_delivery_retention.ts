import { Migration } from '@gateway/db';

/**
 * The event-retention job also prunes settled webhook deliveries (and their attempts) past the
 * 30 days events are kept: found by creation time, which only the per-audience index held.
 */
export class Migration20261221000100_delivery_retention extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index "webhook_deliveries_created_index" on "payments"."webhook_deliveries" ("created_at") where "status" <> 'PENDING';`,
    );
  }
}
