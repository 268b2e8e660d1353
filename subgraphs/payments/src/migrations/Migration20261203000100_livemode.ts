import { Migration } from '@gateway/db';

/**
 * Test mode as a second world (API-CONTRACT "Test mode"): every movement, mandate, obligation,
 * cycle and delivery says which world it belongs to. Existing rows take their owner's mode: a test
 * merchant's past sessions, mandates and charges become test objects; order movements and TPP
 * deliveries were all live before TPPs had a mode; obligations and cycles follow their movements.
 * The columns keep no default afterwards, so a writer that forgets the world fails loudly.
 */
export class Migration20261203000100_livemode extends Migration {
  override async up(): Promise<void> {
    const add = (table: string) =>
      `alter table "payments"."${table}" add column "livemode" boolean not null default true`;
    const noDefault = (table: string) => `alter table "payments"."${table}" alter column "livemode" drop default`;
    const tables = [
      'payment_sessions',
      'mandates',
      'mandate_charges',
      'order_movements',
      'interbank_obligations',
      'settlement_cycles',
      'settlement_positions',
      'webhook_deliveries',
    ];
    for (const table of tables) this.addSql(add(table));
    this.addSql(
      `update "payments"."payment_sessions" s set "livemode" = (m."mode" = 'live') from "payments"."merchants" m where m."id" = s."merchant_id"`,
    );
    this.addSql(
      `update "payments"."mandates" d set "livemode" = (m."mode" = 'live') from "payments"."merchants" m where m."id" = d."merchant_id"`,
    );
    this.addSql(
      `update "payments"."mandate_charges" c set "livemode" = (m."mode" = 'live') from "payments"."merchants" m where m."id" = c."merchant_id"`,
    );
    this.addSql(
      `update "payments"."interbank_obligations" o set "livemode" = false
       where exists (select 1 from "payments"."payment_sessions" s where s."id" = o."session_id" and not s."livemode")
          or exists (select 1 from "payments"."mandate_charges" c where c."id" = o."session_id" and not c."livemode")`,
    );
    this.addSql(
      `update "payments"."webhook_deliveries" d set "livemode" = (m."mode" = 'live') from "payments"."merchants" m where m."id" = d."audience_id"`,
    );
    for (const table of tables) this.addSql(noDefault(table));
    // A cycle takes the unclaimed obligations of its own world only.
    this.addSql(
      `create index "interbank_obligations_unclaimed_world_index" on "payments"."interbank_obligations" ("livemode") where "settlement_cycle_id" is null`,
    );
  }
}
