import { Directive, Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { PageInfo } from '@gateway/federation';
import { BankReference, bankReference } from '../bank/bank.type';
import { GraphQLSafeInt } from 'graphql-scalars';
import type { MandateChargeEntity, MandateEntity } from './mandate.entity';
import { MetadataEntry, toMetadataEntries } from '../metadata/metadata.type';
import { movementFields } from '../movement/movement.type';

export enum MandateStatus {
  PENDING_CONFIRMATION = 'PENDING_CONFIRMATION',
  ACTIVE = 'ACTIVE',
  CANCELLED = 'CANCELLED',
  FAILED = 'FAILED',
}
registerEnumType(MandateStatus, {
  name: 'MandateStatus',
  description: 'Lifecycle of a mandate (API-CONTRACT "Mandates"); CANCELLED and FAILED are final.',
  valuesConfig: {
    PENDING_CONFIRMATION: { description: 'Created; waiting for the customer to confirm at confirm_url with an OTP.' },
    ACTIVE: { description: 'Confirmed: the merchant may charge it, once per interval period.' },
    CANCELLED: { description: "Cancelled by the merchant, or revoked by the customer's bank (revokedBy)." },
    FAILED: { description: 'Three wrong OTPs at confirmation.' },
  },
});

export enum MandateInterval {
  WEEKLY = 'weekly',
  MONTHLY = 'monthly',
  YEARLY = 'yearly',
}
registerEnumType(MandateInterval, {
  name: 'MandateInterval',
  description: 'How often a mandate may be charged: one charge per period, periods counted from startDate.',
  valuesConfig: {
    WEEKLY: { description: 'Every 7 days.' },
    MONTHLY: {
      description:
        "Every calendar month on the start's day, the month's last day when it is shorter (a start on the 31st charges on 30 April).",
    },
    YEARLY: { description: 'Every year on the start date (29 February: the 28th in other years).' },
  },
});

export enum MandateChargeStatus {
  PROCESSING = 'PROCESSING',
  COMPLETED = 'COMPLETED',
  FAILED = 'FAILED',
}
registerEnumType(MandateChargeStatus, {
  name: 'MandateChargeStatus',
  description: 'Lifecycle of a charge; COMPLETED and FAILED are final.',
  valuesConfig: {
    PROCESSING: {
      description: 'The payment engine is moving the money (cross bank: until the creditor bank confirms).',
    },
    COMPLETED: { description: "The merchant's settlement account was credited." },
    FAILED: {
      description:
        'Not paid (failureCode, e.g. INSUFFICIENT_FUNDS); any money taken was returned. The period may be charged again.',
    },
  },
});

@ObjectType({ description: "The customer's acceptance of a mandate, kept as evidence." })
export class MandateAcceptance {
  @Field({ description: 'When the customer confirmed (ISO 8601 UTC).' })
  acceptedAt!: Date;

  @Field(() => String, { nullable: true, description: 'IP address the confirmation came from.' })
  ipAddress!: string | null;

  @Field(() => String, { nullable: true, description: "The customer's browser (User-Agent)." })
  userAgent!: string | null;
}

@ObjectType('Mandate', {
  description: "A merchant's standing authority, confirmed by the customer, to charge them each interval period.",
})
@Directive('@key(fields: "id")')
export class Mandate {
  @Field(() => ID, { description: 'Mandate id (mdt_…).' })
  id!: string;

  @Field({
    description:
      "true for a live object; false for a test one (a test credential's), whose money moves only at test cores.",
  })
  livemode!: boolean;

  @Field(() => ID, { description: 'The merchant that created it (mer_…).' })
  merchantId!: string;

  @Field(() => MandateStatus, { description: 'Where the mandate is in its lifecycle.' })
  status!: MandateStatus;

  @Field({ description: "The customer's alias as the merchant gave it." })
  customerAlias!: string;

  @Field(() => BankReference, { description: "The customer's bank (resolved by the banks subgraph)." })
  customerBank!: BankReference;

  @Field(() => GraphQLSafeInt, { description: 'The most one charge may take, in minor units.' })
  amount!: number;

  @Field({ description: 'ISO 4217: LYD, USD or EUR.' })
  currency!: string;

  @Field(() => MandateInterval, { description: 'How often it may be charged.' })
  interval!: MandateInterval;

  @Field(() => String, { nullable: true, description: 'Shown to the customer at confirmation.' })
  description!: string | null;

  @Field({ description: 'YYYY-MM-DD: no charge before it; periods count from it.' })
  startDate!: string;

  @Field({ description: 'Where the customer confirms the mandate (HTML page).' })
  confirmUrl!: string;

  @Field(() => String, {
    nullable: true,
    description: "merchant, customer or bank: who cancelled it (customer and bank: revoked at the customer's bank).",
  })
  revokedBy!: string | null;

  @Field(() => MandateAcceptance, { nullable: true, description: "The customer's acceptance, once confirmed." })
  acceptance!: MandateAcceptance | null;

  @Field({ description: 'Creation time (ISO 8601 UTC).' })
  createdAt!: Date;

  @Field(() => Date, { nullable: true, description: 'When the customer confirmed it.' })
  confirmedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When it was cancelled or revoked.' })
  cancelledAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When its confirmation failed.' })
  failedAt!: Date | null;

  @Field(() => [MetadataEntry], { description: "The merchant's own key-value pairs, in key order." })
  metadata!: MetadataEntry[];

  entity!: MandateEntity;
}

export function toMandate(entity: MandateEntity): Mandate {
  return {
    id: entity.id,
    livemode: entity.livemode,
    merchantId: entity.merchantId,
    status: MandateStatus[entity.status],
    customerAlias: entity.customerAlias,
    customerBank: bankReference(entity.customerBank),
    amount: Number(entity.amount),
    currency: entity.currency,
    interval: entity.interval as MandateInterval,
    description: entity.description,
    startDate: entity.startDate,
    confirmUrl: entity.confirmUrl,
    revokedBy: entity.revokedBy,
    acceptance: entity.acceptedAt
      ? { acceptedAt: entity.acceptedAt, ipAddress: entity.acceptedIp, userAgent: entity.acceptedUserAgent }
      : null,
    createdAt: entity.createdAt,
    confirmedAt: entity.confirmedAt,
    cancelledAt: entity.cancelledAt,
    failedAt: entity.failedAt,
    metadata: toMetadataEntries(entity.metadata),
    entity,
  };
}

@ObjectType('MandateCharge', {
  description: 'One charge of a mandate: a movement from the customer to the merchant made by the payment engine.',
})
export class MandateCharge {
  @Field(() => ID, { description: 'Charge id (chg_…).' })
  id!: string;

  @Field({
    description:
      "true for a live object; false for a test one (a test credential's), whose money moves only at test cores.",
  })
  livemode!: boolean;

  @Field(() => ID, { description: 'The mandate charged (mdt_…).' })
  mandateId!: string;

  @Field(() => MandateChargeStatus, { description: 'Where the charge is.' })
  status!: MandateChargeStatus;

  @Field(() => GraphQLSafeInt, { description: 'Minor units.' })
  amount!: number;

  @Field(() => GraphQLSafeInt, {
    description: 'Minor units given back by refunds not FAILED (refundMandateCharge); at most amount.',
  })
  amountRefunded!: number;

  @Field({ description: 'ISO 4217, the mandate’s currency.' })
  currency!: string;

  @Field({ description: "The merchant's reference." })
  reference!: string;

  @Field({ description: 'YYYY-MM-DD: the first day of the interval period it pays.' })
  periodStart!: string;

  @Field({ description: 'internal (same bank) or rail (cross bank).' })
  settlementType!: string;

  @Field(() => String, { nullable: true, description: 'Why it FAILED: INSUFFICIENT_FUNDS, CBS_TIMEOUT, CBS_ERROR, …' })
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

export function toMandateCharge(entity: MandateChargeEntity): MandateCharge {
  const fields = movementFields(entity);
  return {
    ...fields,
    status: MandateChargeStatus[fields.status],
    mandateId: entity.mandateId,
    amountRefunded: Number(entity.amountRefunded),
    reference: entity.reference,
    periodStart: entity.periodStart,
  };
}

@ObjectType({ description: 'One mandate of a page, with the cursor that continues after it.' })
export class MandateEdge {
  @Field({ description: 'Pass as `after` to continue after this mandate.' })
  cursor!: string;

  @Field(() => Mandate, { description: 'The mandate.' })
  node!: Mandate;
}

@ObjectType({ description: "A page of the merchant's mandates, newest first (Relay connection)." })
export class MandateConnection {
  @Field(() => [MandateEdge], { description: 'The mandates of this page.' })
  edges!: MandateEdge[];

  @Field(() => PageInfo, { description: 'Whether more follow, and the cursor to continue.' })
  pageInfo!: PageInfo;
}

@ObjectType({ description: 'One charge of a page, with the cursor that continues after it.' })
export class MandateChargeEdge {
  @Field({ description: 'Pass as `after` to continue after this charge.' })
  cursor!: string;

  @Field(() => MandateCharge, { description: 'The charge.' })
  node!: MandateCharge;
}

@ObjectType({ description: "A page of a mandate's charges, newest first (Relay connection)." })
export class MandateChargeConnection {
  @Field(() => [MandateChargeEdge], { description: 'The charges of this page.' })
  edges!: MandateChargeEdge[];

  @Field(() => PageInfo, { description: 'Whether more follow, and the cursor to continue.' })
  pageInfo!: PageInfo;
}

@ObjectType({
  description:
    'What the confirmation page shows the customer (public: the mandate id is the capability). Nothing secret.',
})
export class MandateConfirmationView {
  @Field(() => ID, { description: 'Mandate id (mdt_…).' })
  mandateId!: string;

  @Field(() => MandateStatus, { description: 'Where the mandate is.' })
  status!: MandateStatus;

  @Field({ description: 'Who will charge the customer.' })
  merchantName!: string;

  @Field(() => GraphQLSafeInt, { description: 'The most one charge may take, in minor units.' })
  amount!: number;

  @Field({ description: 'ISO 4217.' })
  currency!: string;

  @Field(() => MandateInterval, { description: 'How often.' })
  interval!: MandateInterval;

  @Field(() => String, { nullable: true, description: "The merchant's description." })
  description!: string | null;

  @Field({ description: 'YYYY-MM-DD: the first charge may come on or after it.' })
  startDate!: string;

  @Field({ description: "The customer's alias, as the merchant gave it." })
  customerAlias!: string;

  @Field(() => BankReference, { description: "The customer's bank, which checks the OTP." })
  customerBank!: BankReference;

  @Field(() => GraphQLSafeInt, { description: 'Wrong OTPs the customer may still enter before the mandate fails.' })
  otpAttemptsLeft!: number;

  @Field({
    description:
      "false for a test mandate (a test merchant's): its charges move no real money, and the page says so with a TEST badge.",
  })
  livemode!: boolean;
}

@ObjectType({ description: "The customer's confirmation, answered." })
export class MandateConfirmationResult {
  @Field(() => ID, { description: 'Mandate id (mdt_…).' })
  mandateId!: string;

  @Field(() => MandateStatus, { description: 'ACTIVE.' })
  status!: MandateStatus;
}
