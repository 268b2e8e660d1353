import { Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { Tpp } from '../tpp/tpp.type';
import { ConsentEntity } from './consent.entity';

/**
 * What suspending a TPP would reach, counted for the operator console's confirmation (issue 50):
 * its consents a customer authorised that are still in force, whose codes and tokens (and their
 * open subscriptions) answer 403 TPP_SUSPENDED. Admin only: any other credential is FORBIDDEN, as
 * the operator's queries are. A count, so no owner's write path is bypassed. It lives with the
 * consents (consent -> tpp is the folders' one direction).
 */
@Resolver(() => Tpp)
export class TppConsentCountResolver {
  @FieldResolver(() => Int, {
    nullable: true,
    description:
      'Consents of the TPP (account access, payment and VRP) that are AUTHORISED and not expired: what a suspension stops (operator only; anyone else FORBIDDEN).',
  })
  async authorisedConsentCount(@Root() tpp: Tpp, @Ctx() context: SubgraphContext): Promise<number> {
    requirePrincipal(context, ['admin']);
    return context.em.count(ConsentEntity, { tppId: tpp.id, status: 'AUTHORISED', expiresAt: { $gt: new Date() } });
  }
}
