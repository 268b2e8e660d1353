import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';
import { PageInfo } from '@gateway/federation';
import type { SettlementPositionEntity } from './position.entity';
import type { CycleView } from './settlement.service';

export enum SettlementCycleStatus {
  OPEN = 'OPEN',
  SETTLING = 'SETTLING',
  SETTLED = 'SETTLED',
  PARTIALLY_FAILED = 'PARTIALLY_FAILED',
}

export enum SettlementPositionStatus {
  PENDING = 'PENDING',
  SETTLED = 'SETTLED',
  FAILED = 'FAILED',
}

export enum SettlementDirection {
  CREDIT = 'CREDIT',
  DEBIT = 'DEBIT',
}

registerEnumType(SettlementCycleStatus, {
  name: 'SettlementCycleStatus',
  description: "Where a settlement cycle stands (Mojaloop's settlement window model).",
  valuesConfig: {
    OPEN: {
      description:
        'Taking obligations and netting them (inside one transaction: readers see the cycle once it has closed).',
    },
    SETTLING: { description: 'Positions fixed; core calls under way or waiting to be retried.' },
    SETTLED: {
      description:
        'Every position booked at its bank (or there was nothing to settle). Final: the cycle is never settled again.',
    },
    PARTIALLY_FAILED: {
      description:
        'No call under way and at least one position refused by its core; refused positions are retried with backoff (or by an operator).',
    },
  },
});

registerEnumType(SettlementPositionStatus, {
  name: 'SettlementPositionStatus',
  description: "Where one bank's net position stands.",
  valuesConfig: {
    PENDING: {
      description:
        'Not booked yet: the call is under way, or its outcome is unknown, or the core was unreachable; retried with the same reference.',
    },
    SETTLED: { description: 'Booked at the bank core. Final.' },
    FAILED: {
      description:
        "Refused by the bank's core (e.g. INSUFFICIENT_FUNDS); retried with the same reference and backoff until booked.",
    },
  },
});

registerEnumType(SettlementDirection, {
  name: 'SettlementDirection',
  description: "How a position moves the bank's settlement account.",
  valuesConfig: {
    CREDIT: { description: 'The bank is owed its net: a credit to its settlement account (/accounts/credit).' },
    DEBIT: { description: 'The bank owes its net: a debit of its settlement account (/accounts/debit).' },
  },
});

@ObjectType('SettlementPosition', {
  description: "One bank's net in one currency within a settlement cycle, and its one core movement.",
})
export class SettlementPosition {
  @Field({ description: 'The bank (handle).' })
  bankHandle!: string;

  @Field({ description: 'ISO 4217 currency of netAmount.' })
  currency!: string;

  @Field(() => GraphQLSafeInt, {
    description:
      "Signed minor units: positive, the bank is owed (CREDIT); negative, it owes (DEBIT). A cycle's positions sum to zero per currency.",
  })
  netAmount!: number;

  @Field(() => SettlementDirection, { description: 'CREDIT or DEBIT of the settlement account.' })
  direction!: SettlementDirection;

  @Field(() => SettlementPositionStatus, { description: 'PENDING, SETTLED or FAILED.' })
  status!: SettlementPositionStatus;

  @Field({
    description:
      'The core reference of the movement, `stl_…:<bank_handle>:<currency>`: every call and retry carries it, so the core books it once.',
  })
  coreReference!: string;

  @Field(() => String, {
    nullable: true,
    description: "The bank's settlement_account_iban the movement goes to; null before the first call.",
  })
  settlementIban!: string | null;

  @Field(() => Int, { description: 'Calls made so far (retries and replays included).' })
  attempts!: number;

  @Field(() => String, {
    nullable: true,
    description: 'The last failure met (the core refusal, or why the outcome is not known yet); null once booked.',
  })
  lastError!: string | null;

  @Field(() => Date, { nullable: true, description: 'When the core booked it (ISO 8601 UTC).' })
  settledAt!: Date | null;
}

@ObjectType('SettlementCycle', {
  description:
    'A settlement cycle: the interbank obligations it took, netted per bank and currency, and settled once per position at the banks.',
})
export class SettlementCycle {
  @Field(() => ID, { description: 'stl_…' })
  id!: string;

  @Field({
    description:
      "true for a live cycle; false for a test cycle, which nets test obligations only at the banks' test cores.",
  })
  livemode!: boolean;

  @Field(() => SettlementCycleStatus, { description: 'OPEN, SETTLING, SETTLED or PARTIALLY_FAILED.' })
  status!: SettlementCycleStatus;

  @Field({ description: 'When the cycle started taking obligations (ISO 8601 UTC).' })
  openedAt!: Date;

  @Field(() => Date, { nullable: true, description: 'When it stopped taking obligations and fixed its positions.' })
  closedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When its last position was booked.' })
  settledAt!: Date | null;

  @Field(() => Int, { description: 'Interbank obligations the cycle took (each is in exactly one cycle).' })
  obligationCount!: number;

  @Field({ description: "What started it: 'api' (an operator) or 'schedule' (SETTLEMENT_INTERVAL_SECONDS)." })
  trigger!: string;

  @Field(() => [SettlementPosition], {
    description:
      "Non-zero positions, by currency then bank (a bank's key sees its own only). A bank whose net is zero has none and gets no call.",
  })
  positions!: SettlementPosition[];
}

@ObjectType('SettlementCycleEdge', { description: 'One cycle of a page.' })
export class SettlementCycleEdge {
  @Field(() => ID, { description: 'Pass as `after` to continue after this cycle.' })
  cursor!: string;

  @Field(() => SettlementCycle, { description: 'The cycle.' })
  node!: SettlementCycle;
}

@ObjectType('SettlementCycleConnection', { description: 'Settlement cycles, newest first.' })
export class SettlementCycleConnection {
  @Field(() => [SettlementCycleEdge], { description: 'The cycles of this page, newest first.' })
  edges!: SettlementCycleEdge[];

  @Field(() => PageInfo, { description: 'Where this page sits in the whole list.' })
  pageInfo!: PageInfo;
}

export function toSettlementCycle({ cycle, positions }: CycleView): SettlementCycle {
  return {
    id: cycle.id,
    livemode: cycle.livemode,
    status: cycle.status as SettlementCycleStatus,
    openedAt: cycle.openedAt,
    closedAt: cycle.closedAt,
    settledAt: cycle.settledAt,
    obligationCount: cycle.obligationCount,
    trigger: cycle.trigger,
    positions: positions.map(toSettlementPosition),
  };
}

export function toSettlementPosition(position: SettlementPositionEntity): SettlementPosition {
  return {
    bankHandle: position.bankHandle,
    currency: position.currency,
    netAmount: Number(position.netAmount),
    direction: BigInt(position.netAmount) > 0n ? SettlementDirection.CREDIT : SettlementDirection.DEBIT,
    status: position.status as SettlementPositionStatus,
    coreReference: position.coreReference,
    settlementIban: position.settlementIban,
    attempts: position.attempts,
    lastError: position.lastError,
    settledAt: position.settledAt,
  };
}
