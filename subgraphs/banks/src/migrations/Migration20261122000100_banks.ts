import { Migration } from '@gateway/db';

export class Migration20261122000100_banks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "banks"."banks" (
      "handle" text not null primary key,
      "display_name" text not null,
      "country" text not null,
      "institution_code" text not null,
      "core_base_url" text not null,
      "settlement_account_iban" text not null,
      "contact_email" text not null,
      "internal_key_sealed" text not null,
      "status" text not null default 'ACTIVE',
      "min_amount" bigint not null,
      "max_amount" bigint not null,
      "ob_enabled" boolean not null default false,
      "ob_scopes_supported" jsonb not null,
      "sca_exemption_limit" bigint not null,
      "max_consent_expiry_days" integer not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "banks_institution_code_unique" unique ("institution_code"),
      constraint "banks_amounts_check" check ("min_amount" >= 1 and "max_amount" >= "min_amount"),
      constraint "banks_status_check" check ("status" in ('ACTIVE', 'SUSPENDED')));`);
  }
}
