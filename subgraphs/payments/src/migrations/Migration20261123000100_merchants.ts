import { Migration } from '@gateway/db';

export class Migration20261123000100_merchants extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "payments"."merchants" (
      "id" text not null primary key,
      "name" text not null,
      "mode" text not null,
      "webhook_url" text null,
      "settlement_iban" text null,
      "status" text not null default 'ACTIVE',
      "webhook_secret_sealed" text not null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      constraint "merchants_mode_check" check ("mode" in ('test', 'live')),
      constraint "merchants_status_check" check ("status" in ('ACTIVE')));`);
  }
}
