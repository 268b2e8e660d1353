import { Migration } from '@gateway/db';

/**
 * Wrong one-time passwords given at the consent page, counted by an atomic increment so
 * concurrent attempts cannot each see "two so far"; the third rejects the consent.
 */
export class Migration20261128000100_consent_otp_failures extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "open_banking"."consents" add column "otp_failures" integer not null default 0,
      add constraint "consents_otp_failures_check" check ("otp_failures" >= 0);`);
  }
}
