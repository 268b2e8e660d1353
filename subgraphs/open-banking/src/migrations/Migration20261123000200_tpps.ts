import { Migration } from '@gateway/db';

export class Migration20261123000200_tpps extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "open_banking"."tpps" (
      "id" text not null primary key,
      "name" text not null,
      "redirect_uris" jsonb not null,
      "webhook_url" text null,
      "webhook_secret_sealed" text not null,
      "created_at" timestamptz not null,
      constraint "tpps_redirect_uris_check" check (
        case when jsonb_typeof("redirect_uris") = 'array' then jsonb_array_length("redirect_uris") between 1 and 10 else false end));`);
  }
}
