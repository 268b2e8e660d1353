import { Migration } from '@mikro-orm/migrations';

/**
 * Participants an operator suspended (a bank by handle, a merchant or a TPP by id; API-CONTRACT
 * "Operator controls"). Their credentials stop verifying while a row is here: verification reads
 * it in the same statement as the credential (vault.ts findByHash), so a suspension committed
 * before a request arrives is always seen. A bank handle has no underscore and every other id
 * is prefixed (mer_, tpp_), so one column holds them all without collisions.
 */
export class Migration20261210000100_suspended_owners extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table if not exists "auth"."suspended_owners" (
      "owner_id" text not null primary key,
      "suspended_at" timestamptz not null);`);
  }
}
