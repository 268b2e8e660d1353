import { Migration } from '@gateway/db';

/**
 * Deliveries go to a merchant or, for Open Banking events, a TPP (one dispatcher for both): the
 * merchant column becomes the audience (mer_… or tpp_…). A rename, so existing deliveries, the
 * one-delivery-per-event-and-audience constraint and the delivery-log index carry over as they are.
 */
export class Migration20261129000100_webhook_audience extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "payments"."webhook_deliveries" rename column "merchant_id" to "audience_id";`);
    this.addSql(
      `alter table "payments"."webhook_deliveries" rename constraint "webhook_deliveries_event_merchant_unique" to "webhook_deliveries_event_audience_unique";`,
    );
    this.addSql(
      `alter index "payments"."webhook_deliveries_merchant_index" rename to "webhook_deliveries_audience_index";`,
    );
  }
}
