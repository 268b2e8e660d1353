import type { EntityManager } from '@mikro-orm/postgresql';
import { GatewayError, newId, type Logger, type Principal, type PrincipalKind } from '@gateway/kernel';
import { AuditEntry, type AuditChange } from './audit-entry.entity';

/**
 * Every action the log records (API-CONTRACT "Operator controls"): admin actions, credentials
 * issued, rotated or revoked, changes of where money goes, bank capabilities and limits,
 * suspensions, attention resolutions and settlement retries. Named `<what>.<done>`.
 */
export const AUDIT_ACTIONS = [
  'admin_key.created',
  'admin_key.revoked',
  'operator_session.started',
  'merchant.created',
  'merchant.updated',
  'merchant.key_rotated',
  'merchant.webhook_secret_rotated',
  'merchant.suspended',
  'merchant.resumed',
  'bank.registered',
  'bank.updated',
  'bank.key_rotated',
  'bank.key_revoked',
  'bank.internal_key_rotated',
  'bank.suspended',
  'bank.resumed',
  'bank.net_debit_cap_set',
  'bank.net_debit_cap_removed',
  'tpp.registered',
  'tpp.updated',
  'tpp.token_rotated',
  'tpp.webhook_secret_rotated',
  'tpp.suspended',
  'tpp.resumed',
  'tpp.disabled',
  'attention.resolved',
  'settlement.retried',
  'webhook_endpoint.created',
  'webhook_endpoint.updated',
  'webhook_endpoint.deleted',
] as const;

export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** Fields that say where money or its news goes: a change of one is also logged at warn. */
const MONEY_ROUTE_FIELDS = new Set([
  'settlement_iban',
  'settlement_account_iban',
  'settlement_accounts',
  'webhook_url',
  'core_base_url',
  'sandbox_core_base_url',
]);

/** A field named like a secret never carries its value into the log: only that it changed. */
const SECRET_FIELD = /(secret|password|token|otp|(^|_)key)$/i;
/**
 * Values that are platform secrets by their shape, whatever the field is called: a known prefix
 * and a long random tail (newSecret's 43 characters), nothing else. Not the prefix alone: a
 * merchant named "at_home" or a contact "rt_ops@bank.ly" is no secret and must not be refused.
 */
const SECRET_VALUE =
  /^(mk_|sbk_|tpk_|at_|rt_|cat_|rat_|oac_|sst_|mds_|whsec_|sik_|adm_|pls_|adk_sec_)[A-Za-z0-9_-]{20,}$/;
const REDACTED = '[secret]';

/** Who acted: from the request's principal (a named admin key carries its name) and request id. */
export interface AuditActor {
  kind: PrincipalKind;
  id?: string;
  name?: string;
  ip?: string;
  requestId?: string;
}

export interface AuditRecord {
  actor: AuditActor;
  action: AuditAction;
  target: string;
  /** The fields the action changed, before and after; secrets only as `[secret]`. */
  changes?: Record<string, AuditChange>;
}

/** The actor of a resolver's request. */
export function auditActor(context: { principal: Principal; requestId?: string }): AuditActor {
  const { principal, requestId } = context;
  return {
    kind: principal.kind,
    ...(principal.id !== undefined ? { id: principal.id } : {}),
    ...(principal.name !== undefined ? { name: principal.name } : {}),
    ...(principal.ip !== undefined ? { ip: principal.ip } : {}),
    ...(requestId !== undefined ? { requestId } : {}),
  };
}

/** The fields of `after` whose value differs from `before` (a PATCH's changes), as before/after pairs. */
export function changesBetween(
  before: Record<string, unknown>,
  after: Record<string, unknown>,
): Record<string, AuditChange> {
  const changes: Record<string, AuditChange> = {};
  for (const [field, to] of Object.entries(after)) {
    if (to === undefined) continue;
    const from = before[field];
    if (JSON.stringify(from) !== JSON.stringify(to)) changes[field] = { from: from ?? null, to };
  }
  return changes;
}

function scrub(value: unknown, field: string): unknown {
  if (value === undefined || value === null) return value;
  if (SECRET_FIELD.test(field)) return REDACTED;
  if (typeof value === 'string' && SECRET_VALUE.test(value)) {
    // A secret under an innocent name is a caller's bug: refuse it rather than keep it forever.
    throw new Error(`audit: field ${field} carries a secret`);
  }
  return value;
}

function scrubbed(changes: Record<string, AuditChange>): Record<string, AuditChange> {
  const clean: Record<string, AuditChange> = {};
  for (const [field, change] of Object.entries(changes)) {
    clean[field] = {
      ...('from' in change ? { from: scrub(change.from, field) } : {}),
      ...('to' in change ? { to: scrub(change.to, field) } : {}),
    };
  }
  return clean;
}

function entryOf(record: AuditRecord, at: Date): AuditEntry {
  const { actor } = record;
  return {
    id: newId('auditEntry'),
    at,
    actorKind: actor.kind,
    actorId: actor.id ?? null,
    actorName: actor.name ?? null,
    action: record.action,
    target: record.target,
    changes: scrubbed(record.changes ?? {}),
    ip: actor.ip ?? null,
    requestId: actor.requestId ?? null,
  };
}

function warnOnMoneyRoute(logger: Logger, entry: AuditEntry): void {
  const routed = Object.keys(entry.changes).filter((field) => MONEY_ROUTE_FIELDS.has(field));
  if (!routed.length) return;
  logger.warn(
    {
      audit_id: entry.id,
      action: entry.action,
      target: entry.target,
      changes: Object.fromEntries(routed.map((field) => [field, entry.changes[field]])),
      actor: { kind: entry.actorKind, id: entry.actorId, name: entry.actorName },
      ip: entry.ip,
      request_id: entry.requestId,
    },
    'where money goes changed',
  );
}

export interface AuditFilter {
  actor?: string;
  action?: string;
  target?: string;
  from?: Date;
  to?: Date;
  limit: number;
  cursor?: string;
}

/** The keyset cursor that continues a listing after `entry` (opaque to readers). */
export const auditCursorOf = (entry: AuditEntry): string =>
  Buffer.from(`${entry.at.toISOString()}|${entry.id}`).toString('base64url');

function parseCursor(cursor: string): { at: Date; id: string } {
  const [at, id] = Buffer.from(cursor, 'base64url').toString('utf8').split('|');
  const when = new Date(at ?? '');
  if (!id || Number.isNaN(when.getTime())) throw new GatewayError('VALIDATION_ERROR', 'cursor is not valid');
  return { at: when, id };
}

/**
 * The audit log. Entries are written only here, always in the caller's transaction, so a change
 * and its entry commit together or not at all: a crash between the two is impossible.
 */
export const audit = {
  /** Adds the entry to the caller's unit of work: it is written when the caller's transaction flushes. */
  record(em: EntityManager, record: AuditRecord, logger: Logger, at = new Date()): AuditEntry {
    const entry = entryOf(record, at);
    em.create(AuditEntry, entry);
    warnOnMoneyRoute(logger, entry);
    return entry;
  },

  /** Newest first, keyset-paged by (at, id). */
  async list(em: EntityManager, filter: AuditFilter): Promise<{ entries: AuditEntry[]; nextCursor: string | null }> {
    const after = filter.cursor ? parseCursor(filter.cursor) : undefined;
    const where = {
      ...(filter.actor ? { $or: [{ actorId: filter.actor }, { actorName: filter.actor }] } : {}),
      ...(filter.action ? { action: filter.action } : {}),
      ...(filter.target ? { target: filter.target } : {}),
      ...(filter.from || filter.to
        ? { at: { ...(filter.from ? { $gte: filter.from } : {}), ...(filter.to ? { $lt: filter.to } : {}) } }
        : {}),
      ...(after ? { $and: [{ $or: [{ at: { $lt: after.at } }, { at: after.at, id: { $lt: after.id } }] }] } : {}),
    };
    const rows = await em.find(AuditEntry, where, {
      orderBy: [{ at: 'desc' }, { id: 'desc' }],
      limit: filter.limit + 1,
      disableIdentityMap: true,
    });
    const entries = rows.slice(0, filter.limit);
    return { entries, nextCursor: rows.length > filter.limit ? auditCursorOf(entries.at(-1)!) : null };
  },
};
