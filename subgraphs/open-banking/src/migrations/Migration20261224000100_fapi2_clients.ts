import { Migration } from '@gateway/db';

/**
 * Issue 49, first slice (API-CONTRACT "Open Banking at FAPI 2.0"): a TPP's security profile, its
 * public keys and, when it registered itself (RFC 7591), its software_id; DISABLED for a TPP its
 * client deleted (RFC 7592). Every TPP registered before keeps the spec's flow (`spec`).
 *
 * seen_jtis: the JWT ids already accepted (client assertions), each until its JWT expires, so a
 * replay is refused on every instance: the primary key admits a jti once per kind and issuer.
 */
export class Migration20261224000100_fapi2_clients extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "open_banking"."tpps"
      add column "security_profile" text not null default 'spec' constraint "tpps_security_profile_check" check ("security_profile" in ('spec', 'fapi2')),
      add column "jwks" jsonb null,
      add column "software_id" text null,
      add constraint "tpps_fapi2_jwks_check" check ("security_profile" <> 'fapi2' or "jwks" is not null);`);
    this.addSql(`alter table "open_banking"."tpps" drop constraint "tpps_status_check";`);
    this.addSql(
      `alter table "open_banking"."tpps" add constraint "tpps_status_check" check ("status" in ('ACTIVE', 'SUSPENDED', 'DISABLED'));`,
    );
    this.addSql(`create table "open_banking"."seen_jtis" (
      "kind" text not null,
      "issuer" text not null,
      "jti" text not null,
      "expires_at" timestamptz not null,
      primary key ("kind", "issuer", "jti"));`);
    this.addSql(`create index "seen_jtis_expires_at_index" on "open_banking"."seen_jtis" ("expires_at");`);
  }
}
