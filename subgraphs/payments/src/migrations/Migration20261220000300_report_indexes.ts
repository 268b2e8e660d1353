import { Migration } from '@gateway/db';

/**
 * Reports (issue 30) read a merchant's refunds by creation time in keyset pages; refunds were
 * indexed by session only. Sessions already have ("merchant_id", "created_at", "id").
 */
export class Migration20261220000300_report_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `create index "refunds_merchant_created_index" on "payments"."refunds" ("merchant_id", "created_at", "id");`,
    );
  }
}
