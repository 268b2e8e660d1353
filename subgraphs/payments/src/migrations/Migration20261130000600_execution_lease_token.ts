import { Migration } from '@gateway/db';

/**
 * Fencing for executions: each owner (the creating request, or the recovery job that took it
 * over) holds a token; its records and lease renewals count only while the token is still the row's.
 */
export class Migration20261130000600_execution_lease_token extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "payments"."payment_executions" add column "lease_token" text null;`);
  }
}
