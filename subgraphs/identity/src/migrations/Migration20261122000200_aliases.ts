import { Migration } from '@gateway/db';

export class Migration20261122000200_aliases extends Migration {
  override async up(): Promise<void> {
    // Handles are never reused, so the handle itself is the primary key (and the federation key).
    this.addSql(`create table "identity"."aliases" (
      "handle" text not null primary key,
      "iban" text not null,
      "institution_code" text not null,
      "bank_handle" text not null,
      "customer_display_name" text not null,
      "bank_customer_ref" text not null,
      "phone" text null,
      "status" text not null default 'ACTIVE',
      "created_at" timestamptz not null,
      "deactivated_at" timestamptz null,
      constraint "aliases_handle_check" check ("handle" ~ '^[a-z][a-z0-9._-]{2,31}$'),
      constraint "aliases_status_check" check ("status" in ('ACTIVE', 'INACTIVE')),
      constraint "aliases_deactivated_at_check" check (("status" = 'INACTIVE') = ("deactivated_at" is not null)));`);
    // Resolution by IBAN and by phone picks the most recent active alias, so both indexes end in created_at.
    this.addSql(`create index "aliases_iban_index" on "identity"."aliases" ("iban", "created_at");`);
    this.addSql(
      `create index "aliases_phone_index" on "identity"."aliases" ("phone", "created_at") where "phone" is not null;`,
    );
    // A phone number resolves to one account: at most one ACTIVE alias carries it; released numbers can be claimed again.
    this.addSql(
      `create unique index "aliases_active_phone_unique" on "identity"."aliases" ("phone") where "status" = 'ACTIVE' and "phone" is not null;`,
    );
    // Open Banking lists a customer's accounts by (bank, bank_customer_ref).
    this.addSql(
      `create index "aliases_bank_customer_index" on "identity"."aliases" ("bank_handle", "bank_customer_ref");`,
    );
  }
}
