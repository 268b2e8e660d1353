import { Migration } from '@gateway/db';
import { outboxNotifyDropSql } from '@gateway/events';

/**
 * Issue 53: the NOTIFY triggers of the outbox and of webhook_deliveries go. PostgreSQL serializes
 * the commits of transactions that notify, through their WAL flush, so each one that added an
 * event or an unclaimed delivery waited for the others'. The relay's lease holder is woken
 * in-process by its own instance's commits, and by a NOTIFY sent after the commit by an instance
 * that does not hold it (relay.ts); a delivery is claimed by the worker of the instance that took
 * it in (its intake wakes it), and by any instance's worker once the heartbeat's check sees it due.
 */
export class Migration20270110000100_notify_after_commit extends Migration {
  override async up(): Promise<void> {
    for (const sql of outboxNotifyDropSql('payments')) this.addSql(sql);
    this.addSql(`drop trigger if exists "webhook_deliveries_notify" on "payments"."webhook_deliveries";`);
    this.addSql(`drop function if exists "payments"."webhook_deliveries_notify"();`);
  }
}
