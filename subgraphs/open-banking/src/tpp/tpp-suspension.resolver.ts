import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { auditedBy, REASON_MAX } from '@gateway/audit';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import type { TppStatus } from './tpp.entity';
import type { TppService } from './tpp.service';
import { Tpp, toTpp } from './tpp.type';

const REASON_DESCRIPTION = `Why, in 1-${REASON_MAX} characters: kept in the audit entry (changes.reason).`;

/** Operator controls (API-CONTRACT): suspend and resume a TPP, admin key only; both idempotent. */
export function createTppSuspensionResolver(service: TppService) {
  const setStatus = async (
    context: SubgraphContext,
    id: string,
    status: Exclude<TppStatus, 'DISABLED'>,
    reason: string | null | undefined,
  ): Promise<Tpp> => {
    requirePrincipal(context, ['admin']);
    const tpp = await service.setStatus(context.em, id, status, auditedBy(context), reason);
    context.logger.info({ tpp: id, status }, 'tpp status set by the operator');
    return toTpp(tpp);
  };

  @Resolver()
  class TppSuspensionResolver {
    @Mutation(() => Tpp, {
      description:
        'Suspends a TPP (operator); a suspended one is answered as it is. Its tpk_ token and every authorization code, access and refresh token of its consents answer 403 TPP_SUSPENDED at once; ' +
        'nothing is revoked, so they work again on resume. Errors: TPP_NOT_FOUND.',
    })
    suspendTpp(
      @Arg('id', () => ID, { description: 'TPP id (tpp_…).' }) id: string,
      @Arg('reason', () => String, { nullable: true, description: REASON_DESCRIPTION })
      reason: string | null | undefined,
      @Ctx() context: SubgraphContext,
    ): Promise<Tpp> {
      return setStatus(context, id, 'SUSPENDED', reason);
    }

    @Mutation(() => Tpp, {
      description:
        'Resumes a suspended TPP (operator): its token and its consents’ tokens work again; an active one is answered as it is. Errors: TPP_NOT_FOUND.',
    })
    resumeTpp(
      @Arg('id', () => ID, { description: 'TPP id (tpp_…).' }) id: string,
      @Arg('reason', () => String, { nullable: true, description: REASON_DESCRIPTION })
      reason: string | null | undefined,
      @Ctx() context: SubgraphContext,
    ): Promise<Tpp> {
      return setStatus(context, id, 'ACTIVE', reason);
    }
  }
  return TppSuspensionResolver;
}
