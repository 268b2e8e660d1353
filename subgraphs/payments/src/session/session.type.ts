import { Directive, Field, ID, ObjectType, registerEnumType } from 'type-graphql';
import { PageInfo } from '@gateway/federation';
import { BankReference, bankReference } from '../bank/bank.type';
import { GraphQLSafeInt } from 'graphql-scalars';
import type { Metadata } from '../metadata/metadata.rules';
import type { PaymentSessionEntity } from './session.entity';
import type { SessionStatus } from './session.transitions';

export enum PaymentSessionStatus {
  PENDING = 'PENDING',
  PROCESSING = 'PROCESSING',
  SETTLEMENT_PENDING = 'SETTLEMENT_PENDING',
  COMPLETED = 'COMPLETED',
  FAILED = 'FAILED',
  EXPIRED = 'EXPIRED',
}

registerEnumType(PaymentSessionStatus, {
  name: 'PaymentSessionStatus',
  description:
    'Lifecycle of a payment session (spec "States and transitions"); COMPLETED, FAILED and EXPIRED are final.',
  valuesConfig: {
    PENDING: { description: 'Created; waiting for the payer at checkout_url until expires_at.' },
    PROCESSING: {
      description: "The payer's OTP was accepted; the bank debit (and, same bank, the credit) is in flight.",
    },
    SETTLEMENT_PENDING: {
      description: "Cross bank: debited at the payer's bank, waiting for the creditor bank to confirm the rail credit.",
    },
    COMPLETED: {
      description: 'The payee was credited (cross bank: confirmed by the creditor bank). Fulfil the order now.',
    },
    FAILED: { description: 'Three wrong OTPs, insufficient funds or a core failure; any money taken was returned.' },
    EXPIRED: { description: 'Not paid before expires_at.' },
  },
});

@ObjectType({ description: 'Where the money goes, as the merchant gave it.' })
export class PaymentDestination {
  @Field({ description: 'alias or iban.' })
  type!: string;

  @Field({ description: 'The alias (handle or handle@bank_handle) or the IBAN (electronic format).' })
  value!: string;
}

@ObjectType('PaymentSession', { description: "A merchant's request to be paid, and what became of it." })
@Directive('@key(fields: "id")')
export class PaymentSession {
  @Field(() => ID, { description: 'Session id (ops_…).' })
  id!: string;

  @Field({
    description:
      "true for a live object; false for a test one (a test credential's), whose money moves only at test cores.",
  })
  livemode!: boolean;

  @Field(() => ID, { description: 'The merchant that created it (mer_…).' })
  merchantId!: string;

  @Field(() => PaymentSessionStatus, { description: 'Where the session is in its lifecycle.' })
  status!: PaymentSessionStatus;

  @Field(() => GraphQLSafeInt, { description: 'Minor units.' })
  amount!: number;

  @Field({ description: 'ISO 4217: LYD, USD or EUR.' })
  currency!: string;

  @Field(() => GraphQLSafeInt, {
    description: 'Minor units given back by refunds not FAILED (refunds); at most amount.',
  })
  amountRefunded!: number;

  @Field(() => PaymentDestination, { description: 'The destination as given at creation.' })
  destination!: PaymentDestination;

  @Field({ description: 'IBAN the destination resolved to when the session was created.' })
  creditorIban!: string;

  @Field(() => BankReference, { description: "The payee's bank (resolved by the banks subgraph)." })
  creditorBank!: BankReference;

  @Field(() => BankReference, { nullable: true, description: "The payer's bank, once the payer has authenticated." })
  debtorBank!: BankReference | null;

  @Field(() => String, {
    nullable: true,
    description: 'internal (same bank) or rail (cross bank), once the payer is known.',
  })
  settlementType!: string | null;

  @Field(() => String, { nullable: true, description: 'Shown to the payer at checkout.' })
  description!: string | null;

  @Field(() => String, { nullable: true, description: "The merchant's own reference." })
  reference!: string | null;

  @Field(() => String, { nullable: true, description: 'Where the payer returns after paying.' })
  redirectUrl!: string | null;

  @Field(() => String, { nullable: true, description: "This session's webhook URL, if it overrides the merchant's." })
  webhookUrl!: string | null;

  @Field({ description: 'Where to send the payer: the checkout page.' })
  checkoutUrl!: string;

  @Field({ description: 'After this the session can no longer be paid (ISO 8601 UTC).' })
  expiresAt!: Date;

  @Field(() => String, {
    nullable: true,
    description: 'Why the session FAILED: OTP_INVALID, INSUFFICIENT_FUNDS, CBS_TIMEOUT, CBS_ERROR, …',
  })
  failureCode!: string | null;

  @Field({ description: 'Creation time (ISO 8601 UTC).' })
  createdAt!: Date;

  @Field({ description: 'Time of the last change (ISO 8601 UTC).' })
  updatedAt!: Date;

  @Field(() => Date, { nullable: true, description: 'When the session COMPLETED.' })
  completedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When the session FAILED.' })
  failedAt!: Date | null;

  @Field(() => Date, { nullable: true, description: 'When the session EXPIRED.' })
  expiredAt!: Date | null;

  /** The merchant's metadata: shown by a field resolver that keeps it from the payer (session.resolver.ts). */
  metadata!: Metadata;
}

@ObjectType({ description: 'One session of a page, with the cursor that continues after it.' })
export class PaymentSessionEdge {
  @Field({ description: 'Pass as `after` to continue after this session.' })
  cursor!: string;

  @Field(() => PaymentSession, { description: 'The session.' })
  node!: PaymentSession;
}

@ObjectType({ description: "A page of the merchant's sessions, newest first (Relay connection)." })
export class PaymentSessionConnection {
  @Field(() => [PaymentSessionEdge], { description: 'The sessions of this page.' })
  edges!: PaymentSessionEdge[];

  @Field(() => PageInfo, { description: 'Whether more follow, and the cursor to get them.' })
  pageInfo!: PageInfo;
}

/**
 * A PENDING session past expires_at is EXPIRED for every reader at once, even before the expiry
 * job has recorded the move (and sent payment.expired), unless an authorization that arrived in
 * time is still being checked (checkoutChecksInFlight): the expiry waits for it.
 */
export function effectiveStatus(
  session: Pick<PaymentSessionEntity, 'status' | 'expiresAt' | 'checkoutChecksInFlight'>,
  now = new Date(),
): SessionStatus {
  const expired =
    session.status === 'PENDING' &&
    session.expiresAt.getTime() <= now.getTime() &&
    !(session.checkoutChecksInFlight > 0);
  return expired ? 'EXPIRED' : session.status;
}

export function toPaymentSession(entity: PaymentSessionEntity, now = new Date()): PaymentSession {
  const status = effectiveStatus(entity, now);
  return {
    id: entity.id,
    livemode: entity.livemode,
    merchantId: entity.merchantId,
    status: PaymentSessionStatus[status],
    amount: Number(entity.amount),
    currency: entity.currency,
    amountRefunded: Number(entity.amountRefunded),
    destination: { type: entity.destinationType, value: entity.destinationValue },
    creditorIban: entity.creditorIban,
    creditorBank: bankReference(entity.creditorBank),
    debtorBank: entity.debtorBank ? bankReference(entity.debtorBank) : null,
    settlementType: entity.settlementType,
    description: entity.description,
    reference: entity.reference,
    redirectUrl: entity.redirectUrl,
    webhookUrl: entity.webhookUrl,
    checkoutUrl: entity.checkoutUrl,
    expiresAt: entity.expiresAt,
    failureCode: entity.failureCode,
    createdAt: entity.createdAt,
    updatedAt: entity.updatedAt,
    completedAt: entity.completedAt,
    failedAt: entity.failedAt,
    // Expired at expires_at, even before the expiry job has recorded it.
    expiredAt: entity.expiredAt ?? (status === 'EXPIRED' ? entity.expiresAt : null),
    metadata: entity.metadata ?? {},
  };
}

/** What an Idempotency-Key replays: the session as the first request answered it. */
export function snapshotOf(entity: PaymentSessionEntity): Record<string, unknown> {
  return {
    ...toPaymentSession(entity),
    expiresAt: entity.expiresAt.toISOString(),
    createdAt: entity.createdAt.toISOString(),
    updatedAt: entity.updatedAt.toISOString(),
  };
}

export function fromSnapshot(snapshot: Record<string, unknown>): PaymentSession {
  const date = (value: unknown) => (typeof value === 'string' ? new Date(value) : null);
  return {
    ...(snapshot as unknown as PaymentSession),
    expiresAt: date(snapshot.expiresAt)!,
    createdAt: date(snapshot.createdAt)!,
    updatedAt: date(snapshot.updatedAt)!,
    completedAt: null,
    failedAt: null,
    expiredAt: null,
  };
}
