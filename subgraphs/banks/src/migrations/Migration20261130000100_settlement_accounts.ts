import { Migration } from '@gateway/db';

/** Settlement accounts per currency: a bank's LYD account cannot take a USD or EUR position. */
export class Migration20261130000100_settlement_accounts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "banks"."banks" add column "settlement_accounts" jsonb not null default '[]';`);
  }
}
