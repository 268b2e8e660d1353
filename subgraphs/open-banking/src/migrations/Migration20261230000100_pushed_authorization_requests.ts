import { Migration } from '@gateway/db';

/**
 * Issue 49 (RFC 9126, RFC 9449 10): pushed authorization requests, each redeemable once, by its
 * client, before it expires; a consent remembers when its authorization request was pushed (a
 * fapi2 TPP's consent page opens only then) and the DPoP key its code is bound to (dpop_jkt).
 *
 * seen_jtis loses its expiry index: expired rows are now deleted by the statement that records
 * the issuer's next jti (seen-jti.ts), not by a periodic purge reading the whole table.
 */
export class Migration20261230000100_pushed_authorization_requests extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "open_banking"."pushed_authorization_requests" (
      "request_uri" text not null primary key,
      "client_id" text not null,
      "consent_id" text not null,
      "redirect_uri" text not null,
      "state" text not null,
      "code_challenge" text not null,
      "dpop_jkt" text null,
      "expires_at" timestamptz not null,
      "used_at" timestamptz null,
      "created_at" timestamptz not null);`);
    this.addSql(
      `create index "pushed_authorization_requests_consent_id_index" on "open_banking"."pushed_authorization_requests" ("consent_id");`,
    );
    this.addSql(`alter table "open_banking"."consents"
      add column "dpop_jkt" text null,
      add column "pushed_at" timestamptz null;`);
    this.addSql(`drop index if exists "open_banking"."seen_jtis_expires_at_index";`);
  }
}
