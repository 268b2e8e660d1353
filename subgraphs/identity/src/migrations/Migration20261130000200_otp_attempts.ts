import { Migration } from '@gateway/db';

/** OTP checks per customer across sessions, consents and mandates (otp-guard). */
export class Migration20261130000200_otp_attempts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "identity"."otp_attempts" (
      "id" text not null primary key,
      "bank_handle" text not null,
      "customer_ref" text not null,
      "guess" text not null,
      "taken_at" timestamptz not null);`);
    this.addSql(
      `create index "otp_attempts_customer_index" on "identity"."otp_attempts" ("bank_handle", "customer_ref", "taken_at");`,
    );
  }
}
