export { AuditEntry, type AuditChange } from './audit-entry.entity';
export {
  audit,
  auditActor,
  changesBetween,
  AUDIT_ACTIONS,
  type AuditAction,
  type AuditActor,
  type AuditFilter,
  type AuditRecord,
} from './audit';
export { migrateAudit, AUDIT_SCHEMA } from './schema';
