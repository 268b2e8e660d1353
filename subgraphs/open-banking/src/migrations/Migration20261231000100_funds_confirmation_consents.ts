import { Migration } from '@gateway/db';

/**
 * Issue 51 (confirmation of funds, CBPII): a consent has a kind, and a funds-confirmation consent
 * names the one account it is for (iban or alias, as the TPP gave it). Existing consents are
 * account-information and payment consents.
 */
export class Migration20261231000100_funds_confirmation_consents extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "open_banking"."consents"
      add column "kind" text not null default 'accounts',
      add column "funds_account_type" text null,
      add column "funds_account_value" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "open_banking"."consents"
      drop column "kind",
      drop column "funds_account_type",
      drop column "funds_account_value";`);
  }
}
