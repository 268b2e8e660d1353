import { Migration } from '@gateway/db';

/**
 * payment_executions is keyed by the movement it executes (a session's ops_, a charge's chg_ or a
 * payment order's po_ id): session_id named only the first kind. Its primary key and indexes follow
 * the renamed column.
 */
export class Migration20261204000100_execution_movement_id extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "payments"."payment_executions" rename column "session_id" to "movement_id";`);
  }
}
