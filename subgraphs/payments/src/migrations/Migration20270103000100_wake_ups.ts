import { Migration } from '@gateway/db';
import { outboxNotifySql } from '@gateway/events';

/**
 * Jobs sleep when idle (issue 53): a statement that adds outbox rows notifies the channel
 * `gateway_outbox_payments` at its commit (outboxNotifySql), so the relay of every instance wakes
 * at once instead of polling; the lease holder publishes.
 *
 * Likewise `gateway_webhook_deliveries` for a statement that inserted deliveries nobody claimed
 * (the intake claims those its worker sends at once; the rest wait PENDING for a worker's claim):
 * the delivery worker of every instance wakes and claims, rather than polling every 500 ms.
 */
export class Migration20270103000100_wake_ups extends Migration {
  override async up(): Promise<void> {
    for (const sql of outboxNotifySql('payments')) this.addSql(sql);
    this.addSql(
      `create or replace function "payments"."webhook_deliveries_notify"() returns trigger language plpgsql as $$
       begin
         if exists (select 1 from inserted where "status" = 'PENDING' and "lease_token" is null) then
           perform pg_notify('gateway_webhook_deliveries', '');
         end if;
         return null;
       end $$;`,
    );
    this.addSql(
      `create trigger "webhook_deliveries_notify" after insert on "payments"."webhook_deliveries" referencing new table as "inserted"
       for each statement execute function "payments"."webhook_deliveries_notify"();`,
    );
  }
}
