import type { MigrationObject } from '@gateway/db';
import { Migration20261122000200_aliases } from './Migration20261122000200_aliases';
import { Migration20261130000200_otp_attempts } from './Migration20261130000200_otp_attempts';
import { Migration20261201000200_otp_guards } from './Migration20261201000200_otp_guards';

/** Committed migrations of the identity schema, in order. */
export const migrations: MigrationObject[] = [
  { name: 'Migration20261122000200_aliases', class: Migration20261122000200_aliases },
  { name: 'Migration20261130000200_otp_attempts', class: Migration20261130000200_otp_attempts },
  { name: 'Migration20261201000200_otp_guards', class: Migration20261201000200_otp_guards },
];
