import { audit } from '@gateway/audit';
import { pageInfoOf, requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { Args, Ctx, Query, Resolver } from 'type-graphql';
import { AuditLogArgs } from './audit-log.input';
import { auditLogFilter } from './audit-log.rules';
import { AuditLogEntry, AuditLogEntryConnection, toAuditLogEdge } from './audit-log.type';

/**
 * The operators' read of the audit log (admin key only). The log is written by every subgraph in
 * the transaction of the change it records (@gateway/audit); here it is only read.
 */
export function createAuditLogResolver() {
  @Resolver(() => AuditLogEntry)
  class AuditLogResolver {
    @Query(() => AuditLogEntryConnection, {
      description:
        'The audit log, newest first, filtered by actor, action, target and time (admin; GET /admin/audit). VALIDATION_ERROR for a bad filter or cursor.',
    })
    async auditLog(@Args() args: AuditLogArgs, @Ctx() context: SubgraphContext): Promise<AuditLogEntryConnection> {
      requirePrincipal(context, ['admin']);
      const page = await audit.list(context.em, auditLogFilter(args));
      const edges = page.entries.map(toAuditLogEdge);
      return { edges, pageInfo: pageInfoOf(edges, page.nextCursor !== null) };
    }
  }
  return AuditLogResolver;
}
