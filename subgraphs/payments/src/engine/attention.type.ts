import { Field, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import { PageInfo } from '@gateway/federation';
import type { AttentionCase } from './attention.service';

export enum MovementResolution {
  RETRY = 'RETRY',
  REFUND_PAYER = 'REFUND_PAYER',
  CLOSE = 'CLOSE',
  CREDITED = 'CREDITED',
  NOT_CREDITED = 'NOT_CREDITED',
}

registerEnumType(MovementResolution, {
  name: 'MovementResolution',
  description: "An operator's decision on a movement that needs attention.",
  valuesConfig: {
    RETRY: { description: 'Take the step up again: replays and the core statement, with a fresh deadline.' },
    REFUND_PAYER: {
      description: "The payer's money was taken and not delivered: reverse the debit (once, by its own reference).",
    },
    CLOSE: { description: 'Settled outside the gateway: nothing more to do.' },
    CREDITED: {
      description:
        'A refund held at CBS_OUTCOME_UNKNOWN whose payer the operator found credited: the refund is COMPLETED (refund.completed) and its amount stays refunded. Only once its credit was sent (step credit or confirm).',
    },
    NOT_CREDITED: {
      description:
        "A refund held at CBS_OUTCOME_UNKNOWN whose payer the operator found not credited: the refund FAILS for good with CBS_ERROR (refund.failed), its amount is free to refund again at once, and the engine gives the merchant's debit back (reversal, once) if it was taken.",
    },
  },
});

@ObjectType('MovementNeedingAttention', {
  description:
    'A payment movement the engine could not settle in time (or whose reversal a bank refused for good). The merchant already has a final answer; an operator decides about the money.',
})
export class MovementNeedingAttention {
  @Field(() => ID, {
    description:
      'The movement: a payment session (ops_…), mandate charge (chg_…), payment order (po_…), VRP payment (vrp_…) or refund (rfd_…); also the core reference of its debit and credit.',
  })
  sessionId!: string;

  @Field({ description: 'What the movement is: session, mandate_charge, payment_order, vrp_payment or refund.' })
  kind!: string;

  @Field({
    description:
      'Where the engine stopped: resolve_debit, credit, confirm or reverse; after a resolution, the step it goes on with.',
  })
  step!: string;

  @Field({ description: 'Why it needs attention, in words.' })
  reason!: string;

  @Field({ description: 'When the engine handed it over (ISO 8601 UTC).' })
  since!: Date;

  @Field(() => Int, { description: 'Amount in minor units.' })
  amount!: number;

  @Field({ description: 'ISO 4217 currency of amount.' })
  currency!: string;

  @Field(() => String, { nullable: true, description: "Payer's bank handle." })
  debtorBank!: string | null;

  @Field({ description: "Payer's IBAN." })
  debtorIban!: string;

  @Field({ description: "Payee's bank handle." })
  creditorBank!: string;

  @Field({ description: "Payee's IBAN." })
  creditorIban!: string;

  @Field({ description: "The movement's status (the merchant's or the TPP's answer)." })
  sessionStatus!: string;

  @Field(() => String, { nullable: true, description: "The movement's failure_code." })
  failureCode!: string | null;

  @Field(() => Date, { nullable: true, description: 'When the debit was seen booked, if it was.' })
  debitBookedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When the credit was seen booked, if it was.' })
  creditBookedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When the reversal was seen booked, if it was.' })
  reversalBookedAt!: Date | null;

  @Field(() => String, { nullable: true, description: 'The last failure the engine met.' })
  lastError!: string | null;

  @Field(() => String, { nullable: true, description: "The operator's decision and note; null while it waits." })
  resolution!: string | null;

  @Field(() => Date, { nullable: true, description: 'When the operator decided.' })
  resolvedAt!: Date | null;
}

@ObjectType('MovementNeedingAttentionEdge', { description: 'One movement of a page.' })
export class MovementNeedingAttentionEdge {
  @Field(() => ID, { description: 'Pass as `after` to continue after this movement.' })
  cursor!: string;

  @Field(() => MovementNeedingAttention, { description: 'The movement.' })
  node!: MovementNeedingAttention;
}

@ObjectType('MovementNeedingAttentionConnection', { description: 'Movements needing attention, oldest first.' })
export class MovementNeedingAttentionConnection {
  @Field(() => [MovementNeedingAttentionEdge], { description: 'The movements of this page, oldest first.' })
  edges!: MovementNeedingAttentionEdge[];

  @Field(() => PageInfo, { description: 'Where this page sits in the whole list.' })
  pageInfo!: PageInfo;
}

export function toMovementNeedingAttention({ execution, movement: session }: AttentionCase): MovementNeedingAttention {
  return {
    sessionId: execution.movementId,
    kind: execution.kind,
    step: execution.step === 'attention' ? (execution.attentionStep ?? 'attention') : execution.step,
    reason: execution.attentionReason ?? '',
    since: execution.attentionSince ?? execution.updatedAt,
    amount: Number(session.amount),
    currency: session.currency,
    debtorBank: session.debtorBank,
    debtorIban: execution.debtorIban,
    creditorBank: session.creditorBank,
    creditorIban: session.creditorIban,
    sessionStatus: session.status,
    failureCode: session.failureCode,
    debitBookedAt: execution.debitBookedAt,
    creditBookedAt: execution.creditBookedAt,
    reversalBookedAt: execution.reversalBookedAt,
    lastError: execution.lastError,
    resolution: execution.resolution,
    resolvedAt: execution.resolvedAt,
  };
}
