import { Ctx, FieldResolver, Int, Resolver, Root } from 'type-graphql';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { vault } from '@gateway/vault';
import { PaymentSessionEntity } from '../session/session.entity';
import { Merchant } from './merchant.type';

/**
 * What suspending a merchant or rotating its key would reach, counted for the operator console's
 * confirmations (issue 50: "3 open payment sessions can no longer be paid, 2 dashboard sessions
 * end"). Admin only: any other credential is FORBIDDEN, as the operator's queries are. Reads
 * only (counts), so no owner's write path is bypassed.
 */
@Resolver(() => Merchant)
export class MerchantImpactResolver {
  @FieldResolver(() => Int, {
    nullable: true,
    description:
      'Payment sessions of the merchant still open to be paid (PENDING, not expired, test and live): what a suspension stops (operator only; anyone else FORBIDDEN).',
  })
  async openPaymentSessionCount(@Root() merchant: Merchant, @Ctx() context: SubgraphContext): Promise<number> {
    requirePrincipal(context, ['admin']);
    return context.em.count(PaymentSessionEntity, {
      merchantId: merchant.id,
      status: 'PENDING',
      expiresAt: { $gt: new Date() },
    });
  }

  @FieldResolver(() => Int, {
    nullable: true,
    description:
      'Dashboard sessions of the merchant that are signed in now: they end with a suspension or a key rotation (operator only; anyone else FORBIDDEN).',
  })
  async dashboardSessionCount(@Root() merchant: Merchant, @Ctx() context: SubgraphContext): Promise<number> {
    requirePrincipal(context, ['admin']);
    return vault.countLive(context.em, 'dashboard_session', merchant.id);
  }
}
