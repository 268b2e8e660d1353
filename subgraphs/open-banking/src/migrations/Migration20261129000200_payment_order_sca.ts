import { Migration } from '@gateway/db';

/** The SCA page counts wrong one-time passwords per order (the third fails it). */
export class Migration20261129000200_payment_order_sca extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "open_banking"."payment_orders" add column "sca_otp_failures" integer not null default 0;`,
    );
  }
}
