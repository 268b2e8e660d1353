import { Migration } from '@gateway/db';
import { outboxAggregateSequenceSql } from '@gateway/events';

/** Each event's place among its consent's or payment order's events (the webhook envelope's sequence). */
export class Migration20261130000100_outbox_aggregate_sequence extends Migration {
  override async up(): Promise<void> {
    for (const sql of outboxAggregateSequenceSql('open_banking')) this.addSql(sql);
  }
}
