import { auditCursorOf, type AuditEntry } from '@gateway/audit';
import { PageInfo } from '@gateway/federation';
import { GraphQLJSONObject } from 'graphql-scalars';
import { Field, ID, ObjectType } from 'type-graphql';

@ObjectType('AuditActor', {
  description: 'Who acted: an operator (by admin key), a bank, a merchant, a TPP or a platform service.',
})
export class AuditActor {
  @Field({ description: 'The credential kind: admin, bank, merchant, tpp, service, …' })
  kind!: string;

  @Field(() => String, {
    nullable: true,
    description:
      'The actor id: a merchant id, bank handle, TPP id or named admin key id; null for the configured ADMIN_KEY.',
  })
  id!: string | null;

  @Field(() => String, {
    nullable: true,
    description: "The admin key's name (ADMIN_KEY for the configured one); null for other actors.",
  })
  name!: string | null;
}

@ObjectType('AuditLogEntry', {
  description:
    'One recorded action of the append-only audit log: who, what, before and after (never a secret), from which IP, in which request.',
})
export class AuditLogEntry {
  @Field(() => ID, { description: 'The entry (aud_…).' })
  auditId!: string;

  @Field({ description: 'When the action was committed (ISO 8601 UTC).' })
  at!: Date;

  @Field(() => AuditActor, { description: 'Who acted.' })
  actor!: AuditActor;

  @Field({ description: 'What was done, `<what>.<done>`, e.g. merchant.updated.' })
  action!: string;

  @Field({
    description:
      'What it was done to: a merchant id, bank handle, TPP id, admin key id, movement id or settlement position reference.',
  })
  target!: string;

  @Field(() => GraphQLJSONObject, {
    description:
      'The fields it changed, by their REST names: {field: {from, to}}; `from` absent when the action set the field first. A key or secret shows only as "[secret]".',
  })
  changes!: Record<string, unknown>;

  @Field(() => String, { nullable: true, description: "The caller's IP address, as the gateway saw it." })
  ip!: string | null;

  @Field(() => String, { nullable: true, description: 'The request id (X-Request-Id) the action was made in.' })
  requestId!: string | null;
}

@ObjectType('AuditLogEntryEdge', { description: 'One entry of a page.' })
export class AuditLogEntryEdge {
  @Field(() => ID, { description: 'Pass as `after` to continue after this entry.' })
  cursor!: string;

  @Field(() => AuditLogEntry, { description: 'The entry.' })
  node!: AuditLogEntry;
}

@ObjectType('AuditLogEntryConnection', { description: 'Audit log entries, newest first.' })
export class AuditLogEntryConnection {
  @Field(() => [AuditLogEntryEdge], { description: 'The entries of this page, newest first.' })
  edges!: AuditLogEntryEdge[];

  @Field(() => PageInfo, { description: 'Where this page sits in the whole log.' })
  pageInfo!: PageInfo;
}

export function toAuditLogEdge(entry: AuditEntry): AuditLogEntryEdge {
  return {
    cursor: auditCursorOf(entry),
    node: {
      auditId: entry.id,
      at: entry.at,
      actor: { kind: entry.actorKind, id: entry.actorId, name: entry.actorName },
      action: entry.action,
      target: entry.target,
      changes: entry.changes,
      ip: entry.ip,
      requestId: entry.requestId,
    },
  };
}
