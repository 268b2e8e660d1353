import { Migration } from '@gateway/db';
import { outboxMigrationSql } from '@gateway/events';

/** The open-banking outbox: consent events written in the same transaction as the consent's move. */
export class Migration20261126000100_outbox extends Migration {
  override async up(): Promise<void> {
    for (const sql of outboxMigrationSql('open_banking')) this.addSql(sql);
  }
}
