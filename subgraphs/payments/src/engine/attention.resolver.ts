import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { pageInfoOf, requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { auditedBy } from '@gateway/audit';
import type { AttentionService } from './attention.service';
import {
  MovementNeedingAttention,
  MovementNeedingAttentionConnection,
  MovementResolution,
  toMovementNeedingAttention,
} from './attention.type';

/** The operator's view of movements the engine handed over (admin key only). */
export function createAttentionResolver(service: AttentionService) {
  @Resolver(() => MovementNeedingAttention)
  class AttentionResolver {
    @Query(() => MovementNeedingAttentionConnection, {
      description: 'Payment movements that need an operator, oldest first (admin).',
    })
    async movementsNeedingAttention(
      @Arg('first', () => Int, { defaultValue: 20, description: 'Page size, 1 to 100.' }) first: number,
      @Arg('after', () => ID, { nullable: true, description: 'endCursor of the previous page.' }) after: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<MovementNeedingAttentionConnection> {
      requirePrincipal(context, ['admin']);
      const page = await service.list(context.em, first, after);
      const edges = page.cases.map((found) => ({
        cursor: found.execution.movementId,
        node: toMovementNeedingAttention(found),
      }));
      return { edges, pageInfo: pageInfoOf(edges, page.hasMore) };
    }

    @Mutation(() => MovementNeedingAttention, {
      description:
        "Records an operator's decision on a movement that needs attention; the engine carries it out (admin). " +
        'CREDITED and NOT_CREDITED settle a refund held at CBS_OUTCOME_UNKNOWN after checking the cores: the same finding sent again answers the refund as it is; ' +
        'anything but a held refund is REFUND_NOT_HELD (409). Errors: MOVEMENT_NOT_FOUND, REFUND_NOT_HELD, VALIDATION_ERROR.',
    })
    async resolveMovement(
      @Arg('sessionId', () => ID, {
        description:
          'The movement resolved: a payment session (ops_…), mandate charge (chg_…), payment order (po_…), VRP payment (vrp_…) or refund (rfd_…).',
      })
      sessionId: string,
      @Arg('action', () => MovementResolution, { description: 'What the operator decided.' })
      action: MovementResolution,
      @Arg('note', { description: 'What was checked at the bank(s), 1 to 500 characters.' }) note: string,
      @Ctx() context: SubgraphContext,
    ): Promise<MovementNeedingAttention> {
      requirePrincipal(context, ['admin']);
      const by = auditedBy(context);
      const resolved =
        action === MovementResolution.CREDITED || action === MovementResolution.NOT_CREDITED
          ? await service.settleHeld(context.em, sessionId, action, note, by)
          : await service.resolve(context.em, sessionId, action, note, by);
      context.logger.warn({ session: sessionId, action }, 'movement needing attention resolved by an operator');
      return toMovementNeedingAttention(resolved);
    }
  }
  return AttentionResolver;
}
