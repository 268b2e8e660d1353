import { csvRow } from '../../../csv';
import type { AuditEntry } from './operations';

const EXPORT_COLUMNS = [
  'audit_id',
  'at',
  'actor_kind',
  'actor_id',
  'actor_name',
  'action',
  'target',
  'changes',
  'ip',
  'request_id',
];

/** The entries as CSV (RFC 4180, cells guarded against spreadsheet formulas by rest-compat's csv.ts), changes as JSON. */
export function auditCsv(entries: readonly AuditEntry[]): string {
  return (
    csvRow(EXPORT_COLUMNS) +
    entries
      .map((entry) =>
        csvRow([
          entry.auditId,
          entry.at,
          entry.actor.kind,
          entry.actor.id,
          entry.actor.name,
          entry.action,
          entry.target,
          JSON.stringify(entry.changes),
          entry.ip,
          entry.requestId,
        ]),
      )
      .join('')
  );
}
