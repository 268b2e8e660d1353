import { Migration } from '@gateway/db';
import { outboxAggregateSequenceSql, outboxMigrationSql, outboxRelayLeaseSql } from '@gateway/events';

/**
 * The banks outbox: a change of how the gateway reaches a bank's core (a rotated internal key)
 * is written with the change and relayed to the bus, where payments and open-banking drop their
 * cached routing of the bank (packages/federation bank-changes.ts).
 */
export class Migration20261206000200_banks_outbox extends Migration {
  override async up(): Promise<void> {
    for (const sql of outboxMigrationSql('banks')) this.addSql(sql);
    for (const sql of outboxAggregateSequenceSql('banks')) this.addSql(sql);
    for (const sql of outboxRelayLeaseSql('banks')) this.addSql(sql);
  }
}
