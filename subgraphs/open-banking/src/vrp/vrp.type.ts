import { Field, ID, ObjectType } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';
import type { ConsentEntity } from '../consent/consent.entity';
import { ConsentLifecycle, toConsentLifecycle } from '../consent/consent.type';
import type { VrpConsentTermsEntity } from './vrp-consent-terms.entity';
import type { VrpPaymentEntity } from './vrp-payment.entity';
import type { PeriodUsage } from './vrp-terms';

@ObjectType({ description: 'The payee of every payment of a VRP consent, as the TPP named it.' })
export class VrpCreditor {
  @Field({ description: 'iban or alias.' })
  type!: string;

  @Field({ description: 'The IBAN or the alias.' })
  value!: string;
}

@ObjectType({ description: 'One periodic limit as approved.' })
export class PeriodicLimitTerm {
  @Field({ description: 'Day, Week, Fortnight, Month, Half-year or Year.' })
  periodType!: string;

  @Field({ description: 'Consent or Calendar.' })
  periodAlignment!: string;

  @Field(() => GraphQLSafeInt, { description: 'The most the payments may add up to in one period (minor units).' })
  amount!: number;
}

@ObjectType({ description: 'One periodic limit and, while the consent can pay, its current period.' })
export class PeriodicLimit extends PeriodicLimitTerm {
  @Field({ description: 'Start of the current period (UTC midnight).' })
  periodStart!: Date;

  @Field({ description: 'End of the current period, exclusive (UTC midnight).' })
  periodEnd!: Date;

  @Field(() => GraphQLSafeInt, { description: 'What payments not FAILED used in the current period (minor units).' })
  used!: number;

  @Field(() => GraphQLSafeInt, { description: 'amount - used: what the current period still allows.' })
  remaining!: number;
}

@ObjectType({ description: 'What a VRP consent authorises, as the consent page shows it to the customer.' })
export class VrpTerms {
  @Field(() => VrpCreditor, { description: 'The payee, as the TPP named it.' })
  creditor!: VrpCreditor;

  @Field({ description: 'Currency of every payment and limit.' })
  currency!: string;

  @Field({ description: "The TPP's reference for the consent." })
  reference!: string;

  @Field(() => GraphQLSafeInt, { description: 'The most one payment may be (minor units).' })
  maximumIndividualAmount!: number;

  @Field(() => [PeriodicLimitTerm], { description: 'Every periodic limit, as approved.' })
  periodicLimits!: PeriodicLimitTerm[];

  @Field({ description: 'No payment before it (ISO 8601 UTC).' })
  validFrom!: Date;

  @Field(() => Date, {
    nullable: true,
    description: 'No payment from it on (ISO 8601 UTC); null: until the consent expires.',
  })
  validTo!: Date | null;
}

export const toVrpTerms = (terms: VrpConsentTermsEntity): VrpTerms => ({
  creditor: { type: terms.creditorType, value: terms.creditorValue },
  currency: terms.currency,
  reference: terms.reference,
  maximumIndividualAmount: Number(terms.maximumIndividualAmount),
  periodicLimits: terms.periodicLimits.map((limit) => ({
    periodType: limit.period_type,
    periodAlignment: limit.period_alignment,
    amount: Number(limit.amount),
  })),
  validFrom: terms.validFrom,
  validTo: terms.validTo,
});

@ObjectType({ description: 'The limits the customer approved.' })
export class ControlParameters {
  @Field(() => GraphQLSafeInt, { description: 'The most one payment may be (minor units).' })
  maximumIndividualAmount!: number;

  @Field(() => [PeriodicLimit], { description: 'Each limit with its current period, used and remaining.' })
  periodicLimits!: PeriodicLimit[];

  @Field({ description: 'No payment before it (ISO 8601 UTC).' })
  validFrom!: Date;

  @Field(() => Date, {
    nullable: true,
    description: 'No payment from it on (ISO 8601 UTC); null: until the consent expires.',
  })
  validTo!: Date | null;
}

@ObjectType({
  description:
    'A variable recurring payments consent (UK Open Banking domestic-vrp-consents): the customer lets the TPP pay one payee, without SCA per payment, within control parameters.',
})
export class VrpConsent extends ConsentLifecycle {
  @Field(() => VrpCreditor, { description: 'The payee.' })
  creditor!: VrpCreditor;

  @Field({ description: 'Currency of every payment and limit.' })
  currency!: string;

  @Field({ description: "The TPP's reference for the consent." })
  reference!: string;

  @Field(() => ControlParameters, { description: 'The limits, with what each current period used.' })
  controlParameters!: ControlParameters;

  @Field(() => String, {
    nullable: true,
    description: 'The account (acc_…) payments are made from, fixed when the customer approves; null before.',
  })
  debtorAccountId!: string | null;
}

@ObjectType({ description: 'A payment under a VRP consent.' })
export class VrpPayment {
  @Field(() => ID, { description: 'vrp_…: also its reference at both banks.' })
  id!: string;

  @Field(() => ID, { description: 'The VRP consent it was made under.' })
  consentId!: string;

  @Field({ description: 'false for a test payment.' })
  livemode!: boolean;

  @Field({ description: 'PROCESSING, then COMPLETED or FAILED (failure_code says why).' })
  status!: string;

  @Field(() => GraphQLSafeInt, { description: 'Minor units.' })
  amount!: number;

  @Field({ description: 'The consent currency.' })
  currency!: string;

  @Field({ description: "The TPP's reference, as sent." })
  reference!: string;

  @Field(() => String, { nullable: true, description: 'Why it FAILED (a spec code, for example INSUFFICIENT_FUNDS).' })
  failureCode!: string | null;

  @Field(() => String, { nullable: true, description: 'internal (same bank) or rail (cross bank), once executed.' })
  settlementType!: string | null;

  @Field({ description: 'When it was accepted: the period it counts in (ISO 8601 UTC).' })
  createdAt!: Date;

  @Field({ description: 'Time of the last change (ISO 8601 UTC).' })
  updatedAt!: Date;

  @Field(() => Date, { nullable: true, description: 'When the engine completed it (ISO 8601 UTC).' })
  completedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When it failed (ISO 8601 UTC).' })
  failedAt!: Date | null;
}

@ObjectType({ description: 'The answer to a funds confirmation on a VRP consent: yes or no, never the balance.' })
export class VrpFundsConfirmation {
  @Field(() => ID, { description: 'The VRP consent.' })
  consentId!: string;

  @Field({ description: "true when the payer account's balance, read live from its bank, covers the amount." })
  fundsAvailable!: boolean;

  @Field({ description: 'When the bank was asked (ISO 8601 UTC).' })
  createdAt!: Date;
}

export function toVrpConsent(
  entity: ConsentEntity,
  terms: VrpConsentTermsEntity,
  usage: readonly PeriodUsage[],
  publicBaseUrl: string,
): VrpConsent {
  return {
    ...toConsentLifecycle(entity, publicBaseUrl),
    creditor: { type: terms.creditorType, value: terms.creditorValue },
    currency: terms.currency,
    reference: terms.reference,
    controlParameters: {
      maximumIndividualAmount: Number(terms.maximumIndividualAmount),
      periodicLimits: usage.map((period) => ({
        periodType: period.limit.periodType,
        periodAlignment: period.limit.periodAlignment,
        amount: Number(period.limit.amount),
        periodStart: period.start,
        periodEnd: period.end,
        used: Number(period.used),
        remaining: Number(period.limit.amount - period.used),
      })),
      validFrom: terms.validFrom,
      validTo: terms.validTo,
    },
    debtorAccountId: entity.accountIds[0] ?? null,
  };
}

export const toVrpPayment = (payment: VrpPaymentEntity): VrpPayment => ({
  id: payment.id,
  consentId: payment.consentId,
  livemode: payment.livemode,
  status: payment.status,
  amount: Number(payment.amount),
  currency: payment.currency,
  reference: payment.reference,
  failureCode: payment.failureCode,
  settlementType: payment.settlementType,
  createdAt: payment.createdAt,
  updatedAt: payment.updatedAt,
  completedAt: payment.completedAt,
  failedAt: payment.failedAt,
});
