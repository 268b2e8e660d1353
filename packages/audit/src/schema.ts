import { openServiceOrm, type Database } from '@gateway/db';
import { AuditEntry } from './audit-entry.entity';
import { Migration20261205000000_audit_entries } from './migrations/Migration20261205000000_audit_entries';

export const AUDIT_SCHEMA = 'audit';

/** The audit log's committed migrations, in order. */
export const AUDIT_MIGRATIONS = [
  { name: 'Migration20261205000000_audit_entries', class: Migration20261205000000_audit_entries },
];

/**
 * Applies the audit log's own migrations (the `audit` schema). Idempotent; every service that
 * records an action calls it at start, and lists AuditEntry among its entities with `audit` as a
 * foreign schema, so that an entry is written in the same transaction as the change it records.
 */
export async function migrateAudit(db: Database): Promise<void> {
  // Not closed: the ORM runs on the process-wide pool, which outlives it (as the vault's).
  await openServiceOrm(db, {
    schema: AUDIT_SCHEMA,
    entities: [AuditEntry],
    migrations: AUDIT_MIGRATIONS,
  });
}
