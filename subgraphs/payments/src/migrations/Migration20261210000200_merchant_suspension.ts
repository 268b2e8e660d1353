import { Migration } from '@gateway/db';

/** Merchants can be SUSPENDED by an operator (API-CONTRACT "Operator controls"): the status check widens. */
export class Migration20261210000200_merchant_suspension extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "payments"."merchants" drop constraint if exists "merchants_status_check";`);
    this.addSql(
      `alter table "payments"."merchants" add constraint "merchants_status_check" check ("status" in ('ACTIVE', 'SUSPENDED'));`,
    );
  }
}
