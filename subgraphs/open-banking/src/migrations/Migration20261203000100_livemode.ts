import { Migration } from '@gateway/db';

/**
 * Test mode as a second world (API-CONTRACT "Test mode"): a TPP has a mode, and its consents,
 * their accounts and its payment orders say which world they belong to. TPPs registered before
 * had no mode and moved real money: they stay live, and so do their rows. New TPPs are test
 * unless registered live (as merchants are). The row columns keep no default, so a writer that
 * forgets the world fails loudly.
 */
export class Migration20261203000100_livemode extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table "open_banking"."tpps" add column "mode" text not null default 'live' check ("mode" in ('test', 'live'))`,
    );
    this.addSql(`alter table "open_banking"."tpps" alter column "mode" drop default`);
    for (const table of ['consents', 'consent_accounts', 'payment_orders']) {
      this.addSql(`alter table "open_banking"."${table}" add column "livemode" boolean not null default true`);
      this.addSql(`alter table "open_banking"."${table}" alter column "livemode" drop default`);
    }
  }
}
