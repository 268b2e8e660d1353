import { Migration, type MigrationObject } from '@gateway/db';
import { sandboxMigrations } from '../migrations';
import { quotedSchema } from '../migrations/Migration20250601000000Ledger';

/**
 * The test bank looks a credit's reference up among the debits of every handle (is it a
 * credit-refused or late-confirm test payer's payment?); the ledger's unique index leads with the
 * handle, so that lookup gets an index of its own.
 */
export class Migration20250701000000TestBankDebitReference extends Migration {
  override async up(): Promise<void> {
    const t = quotedSchema(this.config.get('schema'));
    this.addSql(
      `create index "transactions_debit_reference_index" on ${t}."transactions" ("reference") where "operation" = 'DEBIT';`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(
      `drop index if exists ${quotedSchema(this.config.get('schema'))}."transactions_debit_reference_index";`,
    );
  }
}

/** The `test_banks` schema: the sandbox ledger's tables, plus the index above. */
export const testBankMigrations: MigrationObject[] = [
  ...sandboxMigrations,
  { name: 'Migration20250701000000TestBankDebitReference', class: Migration20250701000000TestBankDebitReference },
];
