import { Migration } from '@mikro-orm/migrations';

/**
 * `created_by`: the admin key that made an admin key (its `adk_…` id, or `ADMIN_KEY` for the
 * configured key), so that revoking a key revokes every key it made, and theirs (issue 46: key
 * `op-eve` made `op-eve-backdoor`, and revoking `op-eve` left the backdoor working).
 *
 * Keys made before this column existed get their maker from the audit log, which recorded every
 * `admin_key.created` with the acting key (actor_id; null for the configured key). A key whose
 * maker, or its maker's maker, was revoked before the upgrade is revoked now, each with its
 * `admin_key.revoked` entry (actor: this migration), so an upgrade closes a backdoor that is
 * already open. Both only where the audit schema exists: on a new database there are no keys.
 */
export class Migration20261222000100_credential_created_by extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "auth"."credentials" add column if not exists "created_by" text null;');
    this.addSql(
      `create index if not exists "credentials_admin_key_created_by" on "auth"."credentials" ("created_by") where "kind" = 'admin_key';`,
    );
    this.addSql(`do $$ begin
      if to_regclass('"audit"."entries"') is not null then
        update "auth"."credentials" as "key" set "created_by" = coalesce("made"."actor_id", 'ADMIN_KEY')
          from "audit"."entries" as "made"
          where "key"."kind" = 'admin_key' and "key"."created_by" is null and "made"."action" = 'admin_key.created'
            and "made"."actor_kind" = 'admin' and "made"."target" = "key"."owner_id";
        with recursive "orphaned" as (
            select "child"."id", "child"."owner_id", "child"."created_by" from "auth"."credentials" as "child"
              join "auth"."credentials" as "maker" on "maker"."kind" = 'admin_key' and "maker"."owner_id" = "child"."created_by"
              where "child"."kind" = 'admin_key' and "maker"."revoked_at" is not null
            union
            select "child"."id", "child"."owner_id", "child"."created_by" from "auth"."credentials" as "child"
              join "orphaned" on "child"."created_by" = "orphaned"."owner_id"
              where "child"."kind" = 'admin_key'),
          "revoked" as (
            update "auth"."credentials" set "revoked_at" = now()
              where "id" in (select "id" from "orphaned") and "revoked_at" is null
              returning "owner_id", "created_by", "revoked_at")
        insert into "audit"."entries"
          ("id", "at", "actor_kind", "actor_id", "actor_name", "action", "target", "changes", "ip", "request_id")
          select 'aud_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 24), "revoked_at", 'service',
            'migration:credential_created_by', null, 'admin_key.revoked', "owner_id",
            jsonb_build_object(
              'admin_key', jsonb_build_object('from', '[secret]', 'to', null),
              'revoked_at', jsonb_build_object('from', null,
                'to', to_char("revoked_at" at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
              'revoked_with', jsonb_build_object('to', "created_by")),
            null, null
          from "revoked";
      end if;
    end $$;`);
  }
}
