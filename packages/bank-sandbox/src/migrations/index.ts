import type { MigrationObject } from '@gateway/db';
import { Migration20250601000000Ledger } from './Migration20250601000000Ledger';
import { Migration20261130000100LedgerNewestFirst } from './Migration20261130000100LedgerNewestFirst';

/** Committed migrations of the ledger (the `bank_sandbox` schema; the test bank's `test_banks` adds its own), in order. */
export const sandboxMigrations: MigrationObject[] = [
  { name: 'Migration20250601000000Ledger', class: Migration20250601000000Ledger },
  { name: 'Migration20261130000100LedgerNewestFirst', class: Migration20261130000100LedgerNewestFirst },
];
