import { Migration } from '@mikro-orm/migrations';

/**
 * `label`: a display name kept beside the hash, so verifying a credential gives its name without
 * another query (a named admin key's operator name goes into the principal, the logs and the
 * audit log). One live admin key per name: the audit log tells operators apart by it, and the
 * partial index settles two creations racing for one name.
 */
export class Migration20261206000100_credential_label extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "auth"."credentials" add column if not exists "label" text null;');
    this.addSql(
      `create unique index if not exists "credentials_admin_key_label_live" on "auth"."credentials" ("label") where "kind" = 'admin_key' and "revoked_at" is null;`,
    );
  }
}
