import { Migration } from '@gateway/db';
import { outboxMigrationSql } from '@gateway/events';

/** The payments outbox: events written in the same transaction as the state change. */
export class Migration20261123000150_outbox extends Migration {
  override async up(): Promise<void> {
    for (const sql of outboxMigrationSql('payments')) this.addSql(sql);
  }
}
