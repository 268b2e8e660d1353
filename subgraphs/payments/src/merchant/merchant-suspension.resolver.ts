import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import { auditedBy, REASON_MAX } from '@gateway/audit';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import type { MerchantStatus } from './merchant.entity';
import type { MerchantService } from './merchant.service';
import { Merchant, toMerchant } from './merchant.type';

const REASON_DESCRIPTION = `Why, in 1-${REASON_MAX} characters: kept in the audit entry (changes.reason).`;

/** Operator controls (API-CONTRACT): suspend and resume a merchant, admin key only; both idempotent. */
export function createMerchantSuspensionResolver(service: MerchantService) {
  const setStatus = async (
    context: SubgraphContext,
    id: string,
    status: MerchantStatus,
    reason: string | null | undefined,
  ): Promise<Merchant> => {
    requirePrincipal(context, ['admin']);
    const merchant = await service.setStatus(context.em, id, status, auditedBy(context), reason);
    context.logger.info({ merchant: id, status }, 'merchant status set by the operator');
    return toMerchant(merchant);
  };

  @Resolver()
  class MerchantSuspensionResolver {
    @Mutation(() => Merchant, {
      description:
        'Suspends a merchant (operator); a suspended one is answered as it is. Its keys and dashboard sessions answer 403 MERCHANT_SUSPENDED at once, ' +
        'its open sessions can no longer be paid (checkout: 403 MERCHANT_SUSPENDED) and it can start no new work; payments already authorized finish. Errors: MERCHANT_NOT_FOUND.',
    })
    suspendMerchant(
      @Arg('id', () => ID, { description: 'Merchant id (mer_…).' }) id: string,
      @Arg('reason', () => String, { nullable: true, description: REASON_DESCRIPTION })
      reason: string | null | undefined,
      @Ctx() context: SubgraphContext,
    ): Promise<Merchant> {
      return setStatus(context, id, 'SUSPENDED', reason);
    }

    @Mutation(() => Merchant, {
      description:
        'Resumes a suspended merchant (operator): its keys, dashboard sessions and open sessions work again; an active one is answered as it is. Errors: MERCHANT_NOT_FOUND.',
    })
    resumeMerchant(
      @Arg('id', () => ID, { description: 'Merchant id (mer_…).' }) id: string,
      @Arg('reason', () => String, { nullable: true, description: REASON_DESCRIPTION })
      reason: string | null | undefined,
      @Ctx() context: SubgraphContext,
    ): Promise<Merchant> {
      return setStatus(context, id, 'ACTIVE', reason);
    }
  }
  return MerchantSuspensionResolver;
}
