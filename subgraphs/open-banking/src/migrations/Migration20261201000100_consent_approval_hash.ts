import { Migration } from '@gateway/db';

/** The approval that authorised a consent (HMAC of customer and OTP): the same approval sent again gets its answer again. */
export class Migration20261201000100_consent_approval_hash extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "open_banking"."consents" add column "approval_hash" text null;`);
  }
}
