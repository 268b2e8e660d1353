import { Field, Float, Int, ObjectType } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';
import type { DailyFigures } from './report.service';

@ObjectType({ description: 'How many payments of a day failed with one failure code.' })
export class FailureCount {
  @Field({
    description: 'The spec error code the sessions FAILED with (OTP_INVALID, INSUFFICIENT_FUNDS, CBS_ERROR, …).',
  })
  code!: string;

  @Field(() => Int, { description: 'Sessions that FAILED that day with this code.' })
  count!: number;
}

@ObjectType({
  description:
    "What happened to the merchant's payments on one UTC day in one currency: each figure counts what happened that day " +
    '(a session created on Monday and paid on Tuesday counts as created on Monday and completed on Tuesday).',
})
export class DailySummary {
  @Field({ description: 'The UTC day, YYYY-MM-DD.' })
  date!: string;

  @Field({ description: 'ISO 4217: LYD, USD or EUR.' })
  currency!: string;

  @Field(() => Int, { description: 'Payment sessions created that day.' })
  sessionsCreated!: number;

  @Field(() => Int, { description: 'Sessions that COMPLETED that day.' })
  paymentsCompleted!: number;

  @Field(() => GraphQLSafeInt, { description: 'The amount of the sessions that COMPLETED that day, in minor units.' })
  volume!: number;

  @Field(() => Int, { description: 'Sessions that FAILED that day (by code: failures).' })
  paymentsFailed!: number;

  @Field(() => Int, { description: 'Sessions that EXPIRED that day, unpaid (not counted as attempts).' })
  paymentsExpired!: number;

  @Field(() => Int, {
    description: 'Payments a payer attempted and that ended that day: paymentsCompleted + paymentsFailed.',
  })
  paymentsAttempted!: number;

  @Field(() => Float, {
    nullable: true,
    description:
      'paymentsCompleted / paymentsAttempted, a ratio from 0 to 1 (not money); null when nothing was attempted.',
  })
  successRate!: number | null;

  @Field(() => Int, { description: 'Refunds that COMPLETED that day.' })
  refundsCompleted!: number;

  @Field(() => GraphQLSafeInt, { description: 'The amount of the refunds that COMPLETED that day, in minor units.' })
  refundedAmount!: number;

  @Field(() => [FailureCount], { description: 'The FAILED sessions of the day by failure code, most frequent first.' })
  failures!: FailureCount[];
}

export function toDailySummary(figures: DailyFigures): DailySummary {
  const attempted = figures.paymentsCompleted + figures.paymentsFailed;
  return {
    ...figures,
    paymentsAttempted: attempted,
    successRate: attempted === 0 ? null : figures.paymentsCompleted / attempted,
    failures: [...figures.failures].sort((a, b) => b.count - a.count || a.code.localeCompare(b.code)),
  };
}
