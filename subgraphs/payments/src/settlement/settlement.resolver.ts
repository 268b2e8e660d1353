import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { GatewayError } from '@gateway/kernel';
import { pageInfoOf, requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { auditedBy } from '@gateway/audit';
import type { SettlementService } from './settlement.service';
import {
  SettlementCycle,
  SettlementCycleConnection,
  SettlementPosition,
  toSettlementCycle,
  toSettlementPosition,
} from './settlement.type';

/** Settlement cycles: operators run and read them; a bank reads its own position in a cycle. */
export function createSettlementResolver(service: SettlementService) {
  @Resolver(() => SettlementCycle)
  class SettlementResolver {
    @Mutation(() => SettlementCycle, {
      description:
        'Runs a settlement cycle now (admin): takes every obligation no cycle has taken, nets them per bank and currency, and books each non-zero position at its bank. ' +
        'Answers once the positions had their first call (or after a few seconds). Two runs at once make one cycle: both get it.',
    })
    async runSettlementCycle(
      @Arg('mode', () => String, {
        nullable: true,
        description: "live (default) or test: a test cycle nets test obligations only, against the banks' test cores.",
      })
      mode: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<SettlementCycle> {
      requirePrincipal(context, ['admin']);
      if (mode != null && mode !== 'live' && mode !== 'test')
        throw new GatewayError('VALIDATION_ERROR', 'mode: must be live or test');
      const made = await service.trigger(context.em, 'api', context.requestId, mode !== 'test');
      return toSettlementCycle(await service.find(context.em.fork(), made!.id, context.principal));
    }

    @Query(() => SettlementCycleConnection, { description: 'Settlement cycles, newest first (admin).' })
    async settlementCycles(
      @Arg('first', () => Int, { defaultValue: 20, description: 'Page size, 1 to 100.' }) first: number,
      @Arg('after', () => ID, { nullable: true, description: 'endCursor of the previous page.' }) after: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<SettlementCycleConnection> {
      requirePrincipal(context, ['admin']);
      const page = await service.list(context.em, first, after);
      const edges = page.cycles.map((view) => ({ cursor: view.cycle.id, node: toSettlementCycle(view) }));
      return { edges, pageInfo: pageInfoOf(edges, page.hasMore) };
    }

    @Query(() => SettlementCycle, {
      description:
        'A settlement cycle: every position for an operator; for a bank key, the cycle with its own positions only (FORBIDDEN for a cycle it is not in). SETTLEMENT_CYCLE_NOT_FOUND.',
    })
    async settlementCycle(
      @Arg('id', () => ID, { description: 'The cycle (stl_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<SettlementCycle> {
      requirePrincipal(context, ['admin', 'bank']);
      return toSettlementCycle(await service.find(context.em, id, context.principal));
    }

    @Mutation(() => SettlementPosition, {
      description:
        'Tries an unsettled (FAILED or PENDING) position again now, with the same core reference (admin); a SETTLED one is answered as it is, never sent again. SETTLEMENT_CYCLE_NOT_FOUND.',
    })
    async retrySettlementPosition(
      @Arg('cycleId', () => ID, { description: 'The cycle (stl_…).' }) cycleId: string,
      @Arg('bankHandle', { description: 'The bank of the position.' }) bankHandle: string,
      @Arg('currency', { description: 'The currency of the position.' }) currency: string,
      @Ctx() context: SubgraphContext,
    ): Promise<SettlementPosition> {
      requirePrincipal(context, ['admin']);
      const position = await service.retryPosition(context.em, { cycleId, bankHandle, currency }, auditedBy(context));
      context.logger.warn({ position: position.coreReference }, 'settlement position retried by an operator');
      return toSettlementPosition(position);
    }
  }
  return SettlementResolver;
}
