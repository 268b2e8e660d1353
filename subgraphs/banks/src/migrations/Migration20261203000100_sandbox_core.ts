import { Migration } from '@gateway/db';

/**
 * A bank's own test core (API-CONTRACT "Test mode"): where test objects' core calls go instead of
 * the gateway's built-in test bank, with an internal key of its own (sealed, as the live one is).
 */
export class Migration20261203000100_sandbox_core extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "banks"."banks" add column "sandbox_core_base_url" text null;`);
    this.addSql(`alter table "banks"."banks" add column "sandbox_internal_key_sealed" text null;`);
  }
}
