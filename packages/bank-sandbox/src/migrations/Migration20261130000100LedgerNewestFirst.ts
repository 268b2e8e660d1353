import { Migration } from '@gateway/db';
import { quotedSchema } from './Migration20250601000000Ledger';

/**
 * /sandbox/ledger answers a bank's newest lines first (booked_at, then transaction id, descending,
 * a page of them): without an index in that order every read sorted the bank's whole ledger, so
 * each cost more as it grew (a soak's ledger reads every five minutes showed as latency spikes).
 */
export class Migration20261130000100LedgerNewestFirst extends Migration {
  override async up(): Promise<void> {
    const t = quotedSchema(this.config.get('schema'));
    this.addSql(
      `create index "transactions_bank_handle_booked_at_index" on ${t}."transactions" ("bank_handle", "booked_at", "transaction_id");`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      `drop index if exists ${quotedSchema(this.config.get('schema'))}."transactions_bank_handle_booked_at_index";`,
    );
  }
}
