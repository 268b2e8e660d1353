import type { MigrationObject } from '@gateway/db';
import { Migration20261122000100_banks } from './Migration20261122000100_banks';

/** Committed migrations of the banks schema, in order. */
export const migrations: MigrationObject[] = [{ name: 'Migration20261122000100_banks', class: Migration20261122000100_banks }];
