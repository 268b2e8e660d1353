export { AuditEntry, type AuditChange } from './audit-entry.entity';
export {
  audit,
  auditActor,
  auditCursorOf,
  changesBetween,
  AUDIT_ACTIONS,
  type AuditAction,
  type AuditActor,
  type AuditFilter,
  type AuditRecord,
} from './audit';
export {
  auditedBy,
  createdWith,
  reasonGiven,
  REASON_MAX,
  SECRET_ISSUED,
  SECRET_REMOVED,
  SECRET_REPLACED,
  type AuditedBy,
} from './audited-by';
export { migrateAudit, AUDIT_SCHEMA, AUDIT_MIGRATIONS } from './schema';
