import { Migration } from '@gateway/db';

/** The accounts a customer consented to share, with their stable acc_ ids (one per IBAN and consent). */
export class Migration20261127000100_consent_accounts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "open_banking"."consent_accounts" (
      "id" text not null primary key,
      "consent_id" text not null references "open_banking"."consents" ("id"),
      "iban" text not null,
      "bank_handle" text not null,
      "created_at" timestamptz not null,
      constraint "consent_accounts_consent_id_iban_unique" unique ("consent_id", "iban"));`);
  }
}
