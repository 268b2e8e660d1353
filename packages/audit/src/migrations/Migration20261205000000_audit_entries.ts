import { Migration } from '@mikro-orm/migrations';

/**
 * The audit log: one row per recorded action, append-only by construction. The trigger refuses
 * UPDATE, DELETE and TRUNCATE for every role, the table owner's included, so not even a
 * service's own connection can rewrite history (issue 27: "the database refuses UPDATE and
 * DELETE on it"). Keyset paging reads newest first by (at, id).
 */
export class Migration20261205000000_audit_entries extends Migration {
  override async up(): Promise<void> {
    this.addSql('create schema if not exists "audit";');
    this.addSql(`create table if not exists "audit"."entries" (
      "id" text not null primary key,
      "at" timestamptz not null,
      "actor_kind" text not null,
      "actor_id" text null,
      "actor_name" text null,
      "action" text not null,
      "target" text not null,
      "changes" jsonb not null,
      "ip" text null,
      "request_id" text null);`);
    this.addSql('create index if not exists "entries_at_id_index" on "audit"."entries" ("at" desc, "id" desc);');
    this.addSql('create index if not exists "entries_target_index" on "audit"."entries" ("target", "at" desc);');
    this.addSql('create index if not exists "entries_actor_index" on "audit"."entries" ("actor_id", "at" desc);');
    this.addSql('create index if not exists "entries_action_index" on "audit"."entries" ("action", "at" desc);');
    this.addSql(`create or replace function "audit"."refuse_rewrite"() returns trigger language plpgsql as $$
      begin
        raise exception 'audit entries are append-only (% refused)', tg_op using errcode = 'insufficient_privilege';
      end $$;`);
    this.addSql('drop trigger if exists "entries_append_only" on "audit"."entries";');
    this.addSql(`create trigger "entries_append_only" before update or delete on "audit"."entries"
      for each row execute function "audit"."refuse_rewrite"();`);
    this.addSql('drop trigger if exists "entries_no_truncate" on "audit"."entries";');
    this.addSql(`create trigger "entries_no_truncate" before truncate on "audit"."entries"
      for each statement execute function "audit"."refuse_rewrite"();`);
  }
}
