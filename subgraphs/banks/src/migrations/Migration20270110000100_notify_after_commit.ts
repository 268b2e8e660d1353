import { Migration } from '@gateway/db';
import { outboxNotifyDropSql } from '@gateway/events';

/**
 * Issue 53: the outbox's NOTIFY trigger goes. PostgreSQL serializes the commits of transactions
 * that notify, through their WAL flush, so each one that added an event waited for the others'.
 * The relay's lease holder is woken in-process by its own instance's commits, and by a NOTIFY
 * sent after the commit by an instance that does not hold it (relay.ts).
 */
export class Migration20270110000100_notify_after_commit extends Migration {
  override async up(): Promise<void> {
    for (const sql of outboxNotifyDropSql('banks')) this.addSql(sql);
  }
}
