import { Migration } from '@gateway/db';

/** The authorization that claimed a session (HMAC of payer and OTP): the same one sent again learns the truth. */
export class Migration20261130000300_authorization_hash extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "payments"."payment_executions" add column "authorization_hash" text null;`);
  }
}
