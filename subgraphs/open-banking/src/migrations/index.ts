import type { MigrationObject } from '@gateway/db';
import { Migration20261123000200_tpps } from './Migration20261123000200_tpps';

/** Committed migrations of the open_banking schema, in order. */
export const migrations: MigrationObject[] = [{ name: 'Migration20261123000200_tpps', class: Migration20261123000200_tpps }];
