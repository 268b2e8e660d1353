import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { PrincipalKind } from '@gateway/kernel';

/** One field's value before and after an action; `from` absent when the action created it, `to` absent when it removed it. */
export interface AuditChange {
  from?: unknown;
  to?: unknown;
}

/**
 * One recorded action: who (the actor's kind, id and, for a named admin key, its name), what
 * (action, target, the fields it changed, never a secret), from where (ip) and in which request.
 * Append-only: the database refuses UPDATE and DELETE (see the migration's trigger).
 */
@Entity({ schema: 'audit', tableName: 'entries' })
export class AuditEntry {
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'timestamptz' })
  at!: Date;

  @Property({ type: 'text' })
  actorKind!: PrincipalKind;

  @Property({ type: 'text', nullable: true })
  actorId!: string | null;

  /** The admin key's name (`ADMIN_KEY` for the first one); null for other actors. */
  @Property({ type: 'text', nullable: true })
  actorName!: string | null;

  @Property({ type: 'text' })
  action!: string;

  /** What was acted on: an id or handle (`mer_…`, a bank handle, `tpp_…`, `adk_…`, `stl_…`). */
  @Property({ type: 'text' })
  target!: string;

  @Property({ type: 'json' })
  changes!: Record<string, AuditChange>;

  @Property({ type: 'text', nullable: true })
  ip!: string | null;

  @Property({ type: 'text', nullable: true })
  requestId!: string | null;
}
