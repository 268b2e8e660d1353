import { Arg, Ctx, Directive, Field, ID, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';
import { CORE_CALL_COST, type SubgraphContext } from '@gateway/federation';
import { PaymentOrderStatus } from './payment-order.type';
import type { ScaService } from './sca.service';

@ObjectType('PaymentOrderScaView', {
  description:
    'What the SCA page shows the customer about a payment order (public: the unguessable po_ id is the capability).',
})
export class PaymentOrderScaView {
  @Field(() => ID, { description: 'Payment order id (po_…).' })
  id!: string;

  @Field(() => PaymentOrderStatus, { description: 'PENDING_SCA while the customer can authorise it.' })
  status!: PaymentOrderStatus;

  @Field({ description: 'The third-party provider that initiated the payment.' })
  tppName!: string;

  @Field({ description: "The payee's IBAN." })
  payeeIban!: string;

  @Field(() => GraphQLSafeInt, { description: 'Minor units.' })
  amount!: number;

  @Field({ description: 'ISO 4217.' })
  currency!: string;

  @Field(() => String, { nullable: true, description: 'As the TPP sent it.' })
  description!: string | null;

  @Field({ description: "The payer's bank (handle), which verifies the OTP." })
  payerBank!: string;

  @Field({ description: 'After this the order can no longer be authorised and FAILS (ISO 8601 UTC).' })
  expiresAt!: Date;

  @Field(() => Int, { description: 'Wrong one-time passwords still allowed before the order fails.' })
  otpAttemptsLeft!: number;

  @Field({
    description:
      "false for a test order (a test TPP's): no real money moves, and the SCA page says so with a TEST badge.",
  })
  livemode!: boolean;
}

@ObjectType('PaymentOrderScaResult', { description: "The customer's SCA, accepted: the order is being executed." })
export class PaymentOrderScaResult {
  @Field(() => ID, { description: 'Payment order id (po_…).' })
  paymentOrderId!: string;

  @Field(() => PaymentOrderStatus, { description: 'PROCESSING (or already final).' })
  status!: PaymentOrderStatus;
}

/** The SCA page's operations: customer-facing, no credential (GET /ob/sca/{id}, POST /ob/sca/{id}/authorize). */
export function createScaResolver(service: ScaService) {
  @Resolver()
  class ScaResolver {
    @Query(() => PaymentOrderScaView, {
      description: 'The SCA page of a payment order (GET /ob/sca/{id}). Errors: PAYMENT_ORDER_NOT_FOUND.',
    })
    async paymentOrderSca(
      @Arg('id', () => ID, { description: 'Payment order id (po_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<PaymentOrderScaView> {
      const view = await service.view(context.em, id);
      return {
        id: view.order.id,
        status: PaymentOrderStatus[view.order.status],
        tppName: view.tppName,
        payeeIban: view.order.creditorIban,
        amount: Number(view.order.amount),
        currency: view.order.currency,
        description: view.order.description,
        payerBank: view.order.debtorBank,
        expiresAt: view.expiresAt,
        otpAttemptsLeft: view.otpAttemptsLeft,
        livemode: view.order.livemode,
      };
    }

    @Directive(CORE_CALL_COST)
    @Mutation(() => PaymentOrderScaResult, {
      description:
        "The customer authorises a payment order above the exemption limit with the OTP from their bank, verified by the payer's bank core (POST /ob/sca/{id}/authorize). " +
        'Errors: OTP_INVALID (the third fails the order), PAYMENT_ORDER_NOT_FOUND, PAYMENT_ORDER_NOT_PENDING_SCA (authorised, failed or expired), ' +
        "TPP_SUSPENDED, BANK_NOT_PARTICIPATING (the TPP, or the payer's or payee's bank, is suspended: the order stays PENDING_SCA), VALIDATION_ERROR, CBS_TIMEOUT, CBS_ERROR.",
    })
    async authorizePaymentOrder(
      @Arg('id', () => ID, { description: 'Payment order id (po_…).' }) id: string,
      @Arg('otp', { description: "One-time password from the payer's bank." }) otp: string,
      @Ctx() context: SubgraphContext,
    ): Promise<PaymentOrderScaResult> {
      const order = await service.authorize(context.em, id, otp, context.principal.ip ?? null, context.requestId);
      return { paymentOrderId: order.id, status: PaymentOrderStatus[order.status] };
    }
  }
  return ScaResolver;
}
