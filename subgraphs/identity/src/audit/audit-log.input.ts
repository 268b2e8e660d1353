import { ArgsType, Field, ID, Int } from 'type-graphql';

/** Filters and paging of the audit log (GET /admin/audit); every filter is optional, checked in audit-log.rules.ts. */
@ArgsType()
export class AuditLogArgs {
  @Field(() => String, {
    nullable: true,
    description:
      'Only what this actor did: an actor id (a merchant id, bank handle, TPP id or admin key id) or an admin key name (ADMIN_KEY for the configured one).',
  })
  actor?: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Only this action, e.g. merchant.updated (docs/audit-log.md lists every action).',
  })
  action?: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      'Only what was done to this target: a merchant id, bank handle, TPP id, admin key id, movement id or settlement position reference.',
  })
  target?: string | null;

  @Field(() => Date, { nullable: true, description: 'Only entries at or after this instant (ISO 8601).' })
  from?: Date | null;

  @Field(() => Date, { nullable: true, description: 'Only entries before this instant (ISO 8601).' })
  to?: Date | null;

  @Field(() => Int, { defaultValue: 20, description: 'Page size, 1 to 100.' })
  first!: number;

  @Field(() => ID, { nullable: true, description: 'endCursor of the previous page.' })
  after?: string | null;
}
