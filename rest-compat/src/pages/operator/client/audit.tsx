import { useEffect, useState } from 'preact/hooks';
import { describeError, type ApiError } from '../../dashboard/client/api';
import { formatTime } from '../../dashboard/client/format';
import { ErrorLine } from '../../dashboard/client/shared';
import { auditCsv } from './audit-csv';
import { graphql } from './api';
import { AUDIT_LOG, type AuditEntry, type AuditFilter, type AuditPage } from './operations';

const PAGE_SIZE = 25;
/** The export reads the log 100 entries at a time, up to this many: a narrower filter gets the rest. */
const EXPORT_LIMIT = 2_000;
/** A date input's day ("2026-11-29") as the start of that UTC day, or of the next one (`to` takes the whole day). */
function dayBound(day: string | undefined, end: boolean): string | null {
  if (!day) return null;
  const start = new Date(`${day}T00:00:00.000Z`);
  return new Date(start.getTime() + (end ? 86_400_000 : 0)).toISOString();
}

export function actorLabel(actor: AuditEntry['actor']): string {
  if (actor.kind === 'admin') return actor.name ?? actor.id ?? 'admin';
  return `${actor.kind} ${actor.id ?? ''}`.trim();
}

/** A change as a person reads it: `field: before → after` ("[secret]" stays as the API wrote it). */
function changeLines(changes: AuditEntry['changes']): string[] {
  const show = (value: unknown) =>
    value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);
  return Object.entries(changes).map(([field, change]) =>
    'from' in change ? `${field}: ${show(change.from)} → ${show(change.to)}` : `${field}: ${show(change.to)}`,
  );
}

export function AuditEntries({ entries }: { entries: AuditEntry[] }) {
  return (
    <ul class="rows audit-entries">
      {entries.map((entry) => (
        <li key={entry.auditId} class="audit-entry" data-action={entry.action} data-target={entry.target}>
          <div class="row-main">
            <strong class="audit-action">{entry.action}</strong> <span class="audit-target">{entry.target}</span>
          </div>
          <div class="meta">
            {formatTime(entry.at)} · by <span class="audit-actor">{actorLabel(entry.actor)}</span>
            {entry.ip ? ` · ${entry.ip}` : ''}
          </div>
          {Object.keys(entry.changes).length > 0 && (
            <ul class="audit-changes">
              {changeLines(entry.changes).map((line) => (
                <li key={line}>{line}</li>
              ))}
            </ul>
          )}
        </li>
      ))}
    </ul>
  );
}

/** The audit log with its filters (actor, action, target, period), newest first, page by page. */
export function AuditView({ onError }: { onError: (error: ApiError | null) => void }) {
  const [draft, setDraft] = useState<AuditFilter>({});
  const [filter, setFilter] = useState<AuditFilter>({});
  const [entries, setEntries] = useState<AuditEntry[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<ApiError | null>(null);

  const variablesOf = (first: number, after: string | null) => ({
    actor: filter.actor?.trim() || null,
    action: filter.action?.trim() || null,
    target: filter.target?.trim() || null,
    from: dayBound(filter.from, false),
    to: dayBound(filter.to, true),
    first,
    after,
  });
  const load = async (after: string | null) => {
    try {
      const { auditLog } = await graphql<AuditPage>(AUDIT_LOG, variablesOf(PAGE_SIZE, after));
      const page = auditLog.edges.map((edge) => edge.node);
      setEntries((shown) => (after && shown ? [...shown, ...page] : page));
      setNext(auditLog.pageInfo.hasNextPage ? auditLog.pageInfo.endCursor : null);
      setError(null);
      onError(null);
    } catch (caught) {
      const refused = describeError(caught);
      setError(refused);
      onError(refused);
    }
  };
  useEffect(() => {
    setEntries(null);
    void load(null);
  }, [filter]);

  const [exporting, setExporting] = useState(false);
  const [exported, setExported] = useState<string | null>(null);
  /** Every entry the filter selects (up to EXPORT_LIMIT), saved as a CSV file: built here from the API's answers. */
  const exportCsv = async () => {
    setExporting(true);
    setExported(null);
    try {
      const all: AuditEntry[] = [];
      let after: string | null = null;
      let more = true;
      while (more && all.length < EXPORT_LIMIT) {
        const page: AuditPage = await graphql<AuditPage>(AUDIT_LOG, variablesOf(100, after));
        all.push(...page.auditLog.edges.map((edge) => edge.node));
        more = page.auditLog.pageInfo.hasNextPage;
        after = page.auditLog.pageInfo.endCursor;
      }
      const url = URL.createObjectURL(new Blob([auditCsv(all)], { type: 'text/csv;charset=utf-8' }));
      const link = document.createElement('a');
      link.href = url;
      link.download = `audit-log-${new Date().toISOString().slice(0, 10)}.csv`;
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
      setExported(
        more
          ? `${all.length} entries exported; more match: narrow the filter (a period) for the rest.`
          : `${all.length} entries exported.`,
      );
    } catch (caught) {
      const refused = describeError(caught);
      setError(refused);
      onError(refused);
    } finally {
      setExporting(false);
    }
  };

  const input = (name: keyof AuditFilter, label: string, type = 'text', placeholder = '') => (
    <div class="filter-field">
      <label for={`audit-${name}`}>{label}</label>
      <input
        id={`audit-${name}`}
        type={type}
        placeholder={placeholder}
        value={draft[name] ?? ''}
        onInput={(event) => setDraft({ ...draft, [name]: (event.target as HTMLInputElement).value })}
      />
    </div>
  );

  return (
    <section class="card">
      <h1>Audit log</h1>
      <form
        class="toolbar"
        id="audit-filters"
        onSubmit={(event) => {
          event.preventDefault();
          setFilter({ ...draft });
        }}
      >
        {input('actor', 'Actor', 'text', 'key name or id')}
        {input('action', 'Action', 'text', 'merchant.suspended')}
        {input('target', 'Target', 'text', 'mer_…, bank handle, …')}
        {input('from', 'From (UTC day)', 'date')}
        {input('to', 'To (UTC day)', 'date')}
        <button type="submit" id="audit-apply">
          Filter
        </button>
      </form>
      <div class="actions">
        <button type="button" class="secondary" id="audit-export" disabled={exporting} onClick={() => void exportCsv()}>
          {exporting ? 'Exporting…' : 'Export CSV'}
        </button>
        {exported && (
          <span class="meta" id="audit-exported">
            {exported}
          </span>
        )}
      </div>
      <ErrorLine error={error} id="audit-error" />
      {entries && entries.length === 0 && <p class="meta">No entry matches.</p>}
      {entries && <AuditEntries entries={entries} />}
      {next && (
        <button type="button" class="secondary" id="audit-more" onClick={() => void load(next)}>
          Older entries
        </button>
      )}
    </section>
  );
}
