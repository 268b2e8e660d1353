import { Migration } from '@gateway/db';
import { outboxNotifySql } from '@gateway/events';

/**
 * Jobs sleep when idle (issue 53): a statement that adds outbox rows notifies the channel
 * `gateway_outbox_banks` at its commit (outboxNotifySql), so the relay of every instance wakes
 * at once instead of polling; the lease holder publishes.
 */
export class Migration20270103000100_outbox_notify extends Migration {
  override async up(): Promise<void> {
    for (const sql of outboxNotifySql('banks')) this.addSql(sql);
  }
}
