import { Field, InputType, Int, ObjectType } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';
import type { PositionRow } from './net-debit.positions';

@ObjectType({
  description:
    "A bank's net debit position in one currency and world (issue 48): what it owes the other banks between settlement cycles, and the operator's cap on it.",
})
export class BankPosition {
  @Field({ description: 'The bank (handle).' })
  bankHandle!: string;

  @Field({ description: 'ISO 4217 currency of the amounts.' })
  currency!: string;

  @Field({ description: 'false: the test world, whose positions and caps are separate from the live ones.' })
  livemode!: boolean;

  @Field(() => GraphQLSafeInt, {
    nullable: true,
    description: 'Minor units; null: no cap (movements are never refused for the position).',
  })
  netDebitCap!: number | null;

  @Field(() => [Int], { description: 'Percent of the cap: each crossing upwards records liquidity.threshold_reached.' })
  alertThresholds!: number[];

  @Field({ description: "Whether the cap is covered by the bank's settlement account balance." })
  liquidityCover!: boolean;

  @Field(() => GraphQLSafeInt, {
    description:
      'Minor units: what the bank owes minus what it is owed in obligations no settlement cycle has taken yet, plus reserved.',
  })
  position!: number;

  @Field(() => GraphQLSafeInt, { description: 'Minor units reserved by its cross-bank movements in flight.' })
  reserved!: number;

  @Field(() => GraphQLSafeInt, {
    nullable: true,
    description:
      'netDebitCap minus what the bank owes unsettled (never counted below 0: what it is owed makes room only once a cycle has paid it) minus reserved: the most a new movement may take; negative after a cap was lowered below it; null without a cap.',
  })
  headroom!: number | null;

  @Field(() => String, { nullable: true, description: 'The last settlement cycle that lowered this position.' })
  lastCycleId!: string | null;
}

@ObjectType({ description: 'A net debit cap as set, with the position it applies to.' })
export class NetDebitCapAnswer extends BankPosition {
  @Field({
    description:
      'The cap is below the current position: allowed, and every new movement of the bank in this currency and world is refused (NET_DEBIT_CAP_EXCEEDED) until the position falls.',
  })
  belowPosition!: boolean;
}

@InputType({ description: 'A net debit cap (PUT /banks/{handle}/net-debit-caps/{currency}).' })
export class NetDebitCapInput {
  @Field(() => GraphQLSafeInt, { description: 'Minor units, an integer of 0 or more.' })
  netDebitCap!: number;

  @Field(() => [Int], { nullable: true, description: 'Percent of the cap, 1 to 100, at most 5; default [80, 100].' })
  alertThresholds?: number[] | null;

  @Field(() => Boolean, {
    nullable: true,
    description:
      "true: the cap may not exceed the balance of the bank's settlement account in the currency, read from its core now (NET_DEBIT_CAP_ABOVE_LIQUIDITY).",
  })
  liquidityCover?: boolean | null;
}

export function toBankPosition(row: PositionRow): BankPosition {
  return {
    bankHandle: row.bankHandle,
    currency: row.currency,
    livemode: row.livemode,
    netDebitCap: row.netDebitCap === null ? null : Number(row.netDebitCap),
    alertThresholds: row.alertThresholds,
    liquidityCover: row.liquidityCover,
    position: Number(row.position),
    reserved: Number(row.reserved),
    headroom: row.netDebitCap === null ? null : Number(row.netDebitCap - row.exposure),
    lastCycleId: row.lastCycleId,
  };
}
