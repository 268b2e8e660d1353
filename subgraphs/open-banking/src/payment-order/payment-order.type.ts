import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';
import type { PaymentOrderEntity } from './payment-order.entity';

export enum PaymentOrderStatus {
  PENDING_SCA = 'PENDING_SCA',
  PROCESSING = 'PROCESSING',
  COMPLETED = 'COMPLETED',
  FAILED = 'FAILED',
  REJECTED = 'REJECTED',
}

registerEnumType(PaymentOrderStatus, {
  name: 'PaymentOrderStatus',
  description:
    'Lifecycle of a payment order (contract "Open Banking additions"); COMPLETED, FAILED and REJECTED are final.',
  valuesConfig: {
    PENDING_SCA: {
      description: "Above the payer bank's sca_exemption_limit: waits for the customer at sca_url; no money has moved.",
    },
    PROCESSING: { description: 'Being executed by the payment engine.' },
    COMPLETED: {
      description:
        "Executed: the payer was debited and the payee's credit booked (confirmed by the payee's bank when cross-bank).",
    },
    FAILED: {
      description:
        'Not executed: insufficient funds, failed SCA, SCA not done in time, or a bank core error; see failureCode.',
    },
    REJECTED: { description: 'A bank declined the movement for a reason other than funds (PAYMENT_ORDER_REJECTED).' },
  },
});

@ObjectType('PaymentOrderDestination', { description: 'Where a payment order pays to.' })
export class PaymentOrderDestination {
  @Field({ description: 'iban.' })
  type!: string;

  @Field({ description: "The payee's IBAN, electronic format." })
  value!: string;
}

@ObjectType('PaymentOrder', {
  description: "A TPP's payment order from a consented account, executed by the gateway's payment engine.",
})
export class PaymentOrder {
  @Field(() => ID, { description: 'Payment order id (po_…), also the reference on both statements.' })
  id!: string;

  @Field({
    description:
      "true for a live object; false for a test one (a test credential's), whose money moves only at test cores.",
  })
  livemode!: boolean;

  @Field(() => ID, { description: 'The consent it was made under (con_…).' })
  consentId!: string;

  @Field(() => PaymentOrderStatus, { description: 'Where the order is in its lifecycle.' })
  status!: PaymentOrderStatus;

  @Field({ description: 'The consented account paid from (acc_…).' })
  sourceAccountId!: string;

  @Field(() => PaymentOrderDestination, { description: 'The payee.' })
  destination!: PaymentOrderDestination;

  @Field({ description: "Handle of the payee's bank, from the IBAN's institution code." })
  creditorBank!: string;

  @Field(() => GraphQLSafeInt, { description: 'Minor units.' })
  amount!: number;

  @Field({ description: 'ISO 4217.' })
  currency!: string;

  @Field(() => String, { nullable: true, description: 'As sent.' })
  description!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'The SCA page to send the customer to while PENDING_SCA; null for an order that needed none.',
  })
  scaUrl!: string | null;

  @Field(() => String, { nullable: true, description: 'internal (same bank) or rail (cross bank), once executed.' })
  settlementType!: string | null;

  @Field(() => String, {
    nullable: true,
    description:
      'Why the order FAILED or was REJECTED: INSUFFICIENT_FUNDS, PAYMENT_ORDER_REJECTED, OTP_INVALID, CBS_ERROR, …',
  })
  failureCode!: string | null;

  @Field({ description: 'Creation time (ISO 8601 UTC).' })
  createdAt!: Date;

  @Field({ description: 'Last change (ISO 8601 UTC).' })
  updatedAt!: Date;

  @Field(() => Date, { nullable: true, description: 'When it reached COMPLETED.' })
  completedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When it reached FAILED.' })
  failedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When it reached REJECTED.' })
  rejectedAt!: Date | null;
}

export function toPaymentOrder(order: PaymentOrderEntity): PaymentOrder {
  return {
    id: order.id,
    livemode: order.livemode,
    consentId: order.consentId,
    status: PaymentOrderStatus[order.status],
    sourceAccountId: order.sourceAccountId,
    destination: { type: order.destinationType, value: order.creditorIban },
    creditorBank: order.creditorBank,
    amount: Number(order.amount),
    currency: order.currency,
    description: order.description,
    scaUrl: order.status === 'PENDING_SCA' ? order.scaUrl : null,
    settlementType: order.settlementType,
    failureCode: order.failureCode,
    createdAt: order.createdAt,
    updatedAt: order.updatedAt,
    completedAt: order.completedAt,
    failedAt: order.failedAt,
    rejectedAt: order.rejectedAt,
  };
}
