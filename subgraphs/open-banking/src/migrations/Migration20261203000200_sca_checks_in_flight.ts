import { Migration } from '@gateway/db';

/**
 * OTP checks of the SCA page under way at the payer's bank, and when the latest one arrived: an
 * authorisation that arrived before the SCA deadline is not failed by the expiry job while the
 * bank (or the machine) is slow to answer it.
 */
export class Migration20261203000200_sca_checks_in_flight extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "open_banking"."payment_orders" add column "sca_checks_in_flight" integer not null default 0;`,
    );
    this.addSql(`alter table "open_banking"."payment_orders" add column "sca_check_arrived_at" timestamptz null;`);
  }
}
