import { Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { PageInfo } from '@gateway/federation';
import { BankReference, bankReference } from '../bank/bank.type';
import { GraphQLSafeInt } from 'graphql-scalars';
import type { RefundEntity } from './refund.entity';
import { MetadataEntry } from '../metadata/metadata.type';
import { movementFields } from '../movement/movement.type';

export enum RefundStatus {
  PROCESSING = 'PROCESSING',
  COMPLETED = 'COMPLETED',
  FAILED = 'FAILED',
}
registerEnumType(RefundStatus, {
  name: 'RefundStatus',
  description: 'Lifecycle of a refund; COMPLETED and FAILED are final.',
  valuesConfig: {
    PROCESSING: {
      description:
        "The payment engine is moving the money from the merchant's settlement account to the payer (cross bank: until the payer's bank confirms).",
    },
    COMPLETED: { description: "The payer's account was credited." },
    FAILED: {
      description:
        "Not refunded (failureCode, e.g. INSUFFICIENT_FUNDS at the merchant's bank); any money taken from the merchant was given back, and the amount may be refunded again.",
    },
  },
});

@ObjectType('Refund', {
  description: 'Money a merchant gives back to the payer of a COMPLETED session or mandate charge.',
})
export class Refund {
  @Field(() => ID, { description: 'Refund id (rfd_…).' })
  id!: string;

  @Field(() => ID, { nullable: true, description: "The session refunded (ops_…); null for a mandate charge's refund." })
  sessionId!: string | null;

  @Field(() => ID, { nullable: true, description: "The mandate charge refunded (chg_…); null for a session's refund." })
  chargeId!: string | null;

  @Field(() => ID, {
    nullable: true,
    description: "The refunded charge's mandate (mdt_…); null for a session's refund.",
  })
  mandateId!: string | null;

  @Field(() => ID, { description: 'The merchant that refunds (mer_…).' })
  merchantId!: string;

  @Field({
    description: "The session's or charge's world: false for a test object, whose money moves only at test cores.",
  })
  livemode!: boolean;

  @Field(() => RefundStatus, { description: 'Where the refund is.' })
  status!: RefundStatus;

  @Field(() => GraphQLSafeInt, { description: 'Minor units.' })
  amount!: number;

  @Field({ description: "ISO 4217, the session's or charge's currency." })
  currency!: string;

  @Field(() => String, { nullable: true, description: 'Why the money is given back, as the merchant said.' })
  reason!: string | null;

  @Field(() => String, { nullable: true, description: "The merchant's own reference." })
  reference!: string | null;

  @Field({ description: "internal (the merchant's and the payer's bank are one) or rail (cross bank)." })
  settlementType!: string;

  @Field(() => BankReference, { description: "The payer's bank, credited." })
  payerBank!: BankReference;

  @Field(() => String, {
    nullable: true,
    description:
      'Why it FAILED: INSUFFICIENT_FUNDS (at the merchant’s bank), a refusal of the payer’s bank, CBS_ERROR, …',
  })
  failureCode!: string | null;

  @Field(() => String, { nullable: true, description: 'The failure in words.' })
  failureDetail!: string | null;

  @Field({ description: 'Creation time (ISO 8601 UTC).' })
  createdAt!: Date;

  @Field(() => Date, { nullable: true, description: 'When it COMPLETED.' })
  completedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When it FAILED.' })
  failedAt!: Date | null;

  @Field(() => [MetadataEntry], { description: "The merchant's own key-value pairs, in key order." })
  metadata!: MetadataEntry[];
}

export function toRefund(entity: RefundEntity): Refund {
  const fields = movementFields(entity);
  return {
    ...fields,
    status: RefundStatus[fields.status],
    sessionId: entity.sessionId,
    chargeId: entity.chargeId,
    mandateId: entity.mandateId,
    merchantId: entity.merchantId,
    reason: entity.reason,
    reference: entity.reference,
    payerBank: bankReference(entity.creditorBank),
  };
}

@ObjectType({ description: 'One refund of a page, with the cursor that continues after it.' })
export class RefundEdge {
  @Field({ description: 'Pass as `after` to continue after this refund.' })
  cursor!: string;

  @Field(() => Refund, { description: 'The refund.' })
  node!: Refund;
}

@ObjectType({
  description: "A page of refunds (a session's, a charge's or the merchant's), newest first (Relay connection).",
})
export class RefundConnection {
  @Field(() => [RefundEdge], { description: 'The refunds of this page.' })
  edges!: RefundEdge[];

  @Field(() => PageInfo, { description: 'Whether more follow, and the cursor to continue.' })
  pageInfo!: PageInfo;
}
