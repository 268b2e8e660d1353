import { Migration } from '@gateway/db';

/**
 * Fencing for webhook attempts and settlement position calls, as for executions: each owner (the
 * worker or runner that claimed the row) holds a token, new at every claim; its lease renewals
 * and its records count only while the token is still the row's.
 */
export class Migration20261130000700_delivery_position_lease_tokens extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "payments"."webhook_deliveries" add column "lease_token" text null;`);
    this.addSql(`alter table "payments"."settlement_positions" add column "lease_token" text null;`);
  }
}
