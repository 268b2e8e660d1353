import { Migration } from '@gateway/db';

/** The OTP that passed SCA (HMAC): the same authorisation sent again learns where the order stands. */
export class Migration20261130000200_sca_authorisation_hash extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "open_banking"."payment_orders" add column "sca_authorisation_hash" text null;`);
  }
}
