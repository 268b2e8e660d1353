import { Migration } from '@gateway/db';

/**
 * TPP consents. The status check mirrors consent.transitions.ts; the indexes serve the TPP's
 * newest-first pages and the expiry job's scan of open consents.
 */
export class Migration20261126000200_consents extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "open_banking"."consents" (
      "id" text not null primary key,
      "tpp_id" text not null references "open_banking"."tpps" ("id"),
      "bank_handle" text not null,
      "status" text not null,
      "scopes" jsonb not null,
      "redirect_uri" text not null,
      "state" text not null,
      "code_challenge" text not null,
      "code_challenge_method" text not null,
      "expiry_days" integer not null,
      "expires_at" timestamptz not null,
      "account_ids" jsonb not null default '[]',
      "revoked_by" text null,
      "created_at" timestamptz not null,
      "updated_at" timestamptz not null,
      "authorised_at" timestamptz null,
      "rejected_at" timestamptz null,
      "revoked_at" timestamptz null,
      "expired_at" timestamptz null,
      constraint "consents_status_check" check ("status" in ('AWAITING_AUTHORISATION', 'AUTHORISED', 'REJECTED', 'REVOKED', 'EXPIRED')),
      constraint "consents_method_check" check ("code_challenge_method" = 'S256'),
      constraint "consents_revoked_by_check" check ("revoked_by" is null or "revoked_by" in ('tpp', 'customer', 'bank')));`);
    this.addSql(
      `create index "consents_tpp_created_index" on "open_banking"."consents" ("tpp_id", "created_at" desc, "id" desc);`,
    );
    this.addSql(
      `create index "consents_open_expiry_index" on "open_banking"."consents" ("expires_at") where "status" in ('AWAITING_AUTHORISATION', 'AUTHORISED');`,
    );
  }
}
