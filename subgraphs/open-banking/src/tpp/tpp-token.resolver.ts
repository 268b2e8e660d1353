import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { auditedBy } from '@gateway/audit';
import type { SubgraphContext } from '@gateway/federation';
import { requireTppOrAdmin } from './tpp.resolver';
import { rotateTppToken } from './tpp-token.service';
import { TppTokenRotation } from './tpp-token.type';

/** A TPP's access token, rotated by the TPP itself or by an operator after a leak. */
export function createTppTokenResolver() {
  @Resolver()
  class TppTokenResolver {
    @Mutation(() => TppTokenRotation, {
      description:
        "Rotates a TPP's access token (operator or the TPP itself; another TPP: TPP_NOT_FOUND): the new tpk_ is returned once, the old one stops working at once.",
    })
    async rotateTppToken(
      @Arg('id', () => ID, { description: 'TPP id (tpp_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<TppTokenRotation> {
      requireTppOrAdmin(context, id);
      const tppAccessToken = await rotateTppToken(context.em, id, auditedBy(context));
      context.logger.info({ tpp: id, by: context.principal.kind }, 'tpp access token rotated');
      return { tppAccessToken };
    }
  }
  return TppTokenResolver;
}
