import type { MigrationObject } from '@gateway/db';
import { Migration20261122000200_aliases } from './Migration20261122000200_aliases';

/** Committed migrations of the identity schema, in order. */
export const migrations: MigrationObject[] = [{ name: 'Migration20261122000200_aliases', class: Migration20261122000200_aliases }];
