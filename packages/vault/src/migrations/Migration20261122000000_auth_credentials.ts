import { Migration } from '@mikro-orm/migrations';

export class Migration20261122000000_auth_credentials extends Migration {
  override async up(): Promise<void> {
    this.addSql('create schema if not exists "auth";');
    this.addSql(`create table if not exists "auth"."credentials" (
      "id" text not null primary key,
      "kind" text not null,
      "hash" text not null,
      "owner_id" text not null,
      "scopes" jsonb not null,
      "family" text null,
      "created_at" timestamptz not null,
      "expires_at" timestamptz null,
      "revoked_at" timestamptz null,
      constraint "credentials_hash_unique" unique ("hash"));`);
    this.addSql(
      'create index if not exists "credentials_kind_owner_id_index" on "auth"."credentials" ("kind", "owner_id");',
    );
    this.addSql(
      'create index if not exists "credentials_family_index" on "auth"."credentials" ("family") where "family" is not null;',
    );
  }
}
