import { Migration } from '@gateway/db';

/**
 * A customer's held OTP checks become one row (otp-guard): taking a check is then one upsert whose
 * row lock orders concurrent checks, instead of a transaction with an advisory lock around a query
 * over one row per check (4 statements per payment authorization, now 1).
 */
export class Migration20261201000200_otp_guards extends Migration {
  override async up(): Promise<void> {
    // attempts: [{id, guess, taken_at}], oldest first; taken_at in epoch milliseconds.
    this.addSql(`create table "identity"."otp_guards" (
      "bank_handle" text not null,
      "customer_ref" text not null,
      "attempts" jsonb not null default '[]',
      constraint "otp_guards_pkey" primary key ("bank_handle", "customer_ref"),
      constraint "otp_guards_attempts_check" check (jsonb_typeof("attempts") = 'array'));`);
    // Every check still stored is carried over, window or not: the next take drops what left it.
    // taken_at was written from a JavaScript Date (whole milliseconds), so the conversion is exact.
    this.addSql(`insert into "identity"."otp_guards" ("bank_handle", "customer_ref", "attempts")
      select "bank_handle", "customer_ref",
        jsonb_agg(jsonb_build_object('id', "id", 'guess', "guess", 'taken_at', round(extract(epoch from "taken_at") * 1000)::bigint) order by "taken_at", "id")
      from "identity"."otp_attempts"
      group by "bank_handle", "customer_ref";`);
    this.addSql(`drop table "identity"."otp_attempts";`);
  }
}
