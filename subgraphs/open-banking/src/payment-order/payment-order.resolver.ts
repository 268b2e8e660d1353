import { Arg, Ctx, ID, Mutation, Query, Resolver } from 'type-graphql';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { CreatePaymentOrderInput } from './payment-order.input';
import type { PaymentOrderService } from './payment-order.service';
import { PaymentOrder, toPaymentOrder } from './payment-order.type';

const CALL_ERRORS = 'UNAUTHORIZED, TOKEN_EXPIRED, TOKEN_REVOKED, CONSENT_EXPIRED, FORBIDDEN, SCOPE_INSUFFICIENT';

export function createPaymentOrderResolver(service: PaymentOrderService) {
  @Resolver(() => PaymentOrder)
  class PaymentOrderResolver {
    @Mutation(() => PaymentOrder, {
      description:
        "Creates a payment order from a consented account (POST /ob/payment-orders; access token of a consent with payments:write). At or below the payer bank's " +
        'sca_exemption_limit it executes at once (status PROCESSING, or already final); above it the status is PENDING_SCA with scaUrl and no money moves before SCA. ' +
        `Errors: ${CALL_ERRORS}, ACCOUNT_NOT_FOUND, VALIDATION_ERROR, BANK_NOT_PARTICIPATING, AMOUNT_TOO_LOW, AMOUNT_TOO_HIGH, IDEMPOTENCY_KEY_REUSED, IDEMPOTENCY_KEY_IN_USE.`,
    })
    async createPaymentOrder(
      @Arg('input', { description: 'Source account, destination, amount, currency and description.' })
      input: CreatePaymentOrderInput,
      @Arg('idempotencyKey', () => String, {
        nullable: true,
        description:
          'Same key and body within 24 hours: the same order (as it is now); another body: IDEMPOTENCY_KEY_REUSED; while the first runs: IDEMPOTENCY_KEY_IN_USE.',
      })
      idempotencyKey: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<PaymentOrder> {
      const order = await service.create(context.em, context.principal, input, idempotencyKey, context.requestId);
      context.logger.info({ payment_order: order.id, tpp: order.tppId, status: order.status }, 'payment order created');
      return toPaymentOrder(order);
    }

    @Query(() => PaymentOrder, {
      description:
        "A payment order (GET /ob/payment-orders/{id}): with an access token, its own consent's orders only; with the TPP token, the TPP's. Anything else is PAYMENT_ORDER_NOT_FOUND, like an unknown id.",
    })
    async paymentOrder(
      @Arg('id', () => ID, { description: 'Payment order id (po_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<PaymentOrder> {
      const caller = requirePrincipal(context, ['ob_token', 'tpp']);
      return toPaymentOrder(await service.findForCaller(context.em, caller, id));
    }
  }
  return PaymentOrderResolver;
}
