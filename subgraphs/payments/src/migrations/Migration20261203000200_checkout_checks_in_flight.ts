import { Migration } from '@gateway/db';

/**
 * OTP checks of the checkout page under way at the payer's bank, and when the latest one arrived:
 * an authorization that arrived before the session's TTL ran out is not expired by the expiry job
 * while the bank (or the machine) is slow to answer it.
 */
export class Migration20261203000200_checkout_checks_in_flight extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "payments"."payment_sessions" add column "checkout_checks_in_flight" integer not null default 0;`,
    );
    this.addSql(`alter table "payments"."payment_sessions" add column "checkout_check_arrived_at" timestamptz null;`);
  }
}
