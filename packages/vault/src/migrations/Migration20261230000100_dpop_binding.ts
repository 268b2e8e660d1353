import { Migration } from '@mikro-orm/migrations';

/**
 * DPoP (issue 49, RFC 9449): `key_thumbprint` binds an Open Banking token to the key of the proof
 * it was issued with (its cnf.jkt; null for bearer tokens), and `seen_dpop_proofs` holds each
 * proof's jti until it expires, so a proof is accepted once across every instance.
 */
export class Migration20261230000100_dpop_binding extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table "auth"."credentials" add column if not exists "key_thumbprint" text null;');
    this.addSql(`create table if not exists "auth"."seen_dpop_proofs" (
      "jkt" text not null,
      "jti" text not null,
      "expires_at" timestamptz not null,
      primary key ("jkt", "jti")
    );`);
  }
}
