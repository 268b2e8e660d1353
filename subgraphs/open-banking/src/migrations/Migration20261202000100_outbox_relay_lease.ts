import { Migration } from '@gateway/db';
import { outboxRelayLeaseSql } from '@gateway/events';

/** The outbox relay's lease: one instance relays the schema, taken over within seconds when it dies (a pass is one statement). */
export class Migration20261202000100_outbox_relay_lease extends Migration {
  override async up(): Promise<void> {
    for (const sql of outboxRelayLeaseSql('open_banking')) this.addSql(sql);
  }
}
