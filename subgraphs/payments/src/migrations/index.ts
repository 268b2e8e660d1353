import type { MigrationObject } from '@gateway/db';
import { Migration20261123000100_merchants } from './Migration20261123000100_merchants';

/** Committed migrations of the payments schema, in order. */
export const migrations: MigrationObject[] = [{ name: 'Migration20261123000100_merchants', class: Migration20261123000100_merchants }];
