import { BankReference } from '../bank/bank.type';
import { Field, ID, Int, ObjectType } from 'type-graphql';
import { GraphQLSafeInt } from 'graphql-scalars';
import { PaymentSessionStatus } from '../session/session.type';

@ObjectType({
  description: 'What the checkout page shows the payer (public: anyone holding the unguessable session id).',
})
export class CheckoutSession {
  @Field(() => ID, { description: 'Session id (ops_…).' })
  id!: string;

  @Field(() => PaymentSessionStatus, {
    description: 'Current status; a PENDING session past expires_at reads EXPIRED.',
  })
  status!: PaymentSessionStatus;

  @Field(() => GraphQLSafeInt, { description: 'Minor units.' })
  amount!: number;

  @Field({ description: 'LYD, USD or EUR.' })
  currency!: string;

  @Field(() => String, { nullable: true, description: "The merchant's description of the payment." })
  description!: string | null;

  @Field({ description: 'Who is being paid.' })
  merchantName!: string;

  @Field(() => BankReference, { description: "The payee's bank." })
  creditorBank!: BankReference;

  @Field({ description: 'Pay before this (ISO 8601 UTC).' })
  expiresAt!: Date;

  @Field(() => Int, { description: 'Wrong one-time passwords still allowed before the session fails.' })
  otpAttemptsLeft!: number;

  @Field(() => String, {
    nullable: true,
    description:
      "Once the session is final: the merchant's redirect_url with session_id and status (completed, failed or expired).",
  })
  redirectTo!: string | null;

  @Field(() => String, {
    nullable: true,
    description: "The merchant's own reference (an order number), shown on the payer's receipt.",
  })
  reference!: string | null;

  @Field(() => Date, { nullable: true, description: 'When the payment completed (ISO 8601 UTC), for the receipt.' })
  completedAt!: Date | null;

  @Field(() => String, {
    nullable: true,
    description:
      'Why it FAILED, when it did (a spec error code, e.g. INSUFFICIENT_FUNDS), so the page can say it in plain words.',
  })
  failureCode!: string | null;

  @Field({
    description:
      "false for a test session (a test merchant's): no real money moves, and the checkout page says so with a TEST badge.",
  })
  livemode!: boolean;
}

@ObjectType({ description: "The result of the payer's authorization." })
export class CheckoutAuthorization {
  @Field(() => ID, { description: 'Session id.' })
  sessionId!: string;

  @Field(() => PaymentSessionStatus, {
    description:
      'COMPLETED (same bank), SETTLEMENT_PENDING (cross bank) or PROCESSING when the banks are still at work.',
  })
  status!: PaymentSessionStatus;

  @Field({ description: 'Session token (sst_…) for X-Session-Token on GET /pay/{session_id}/status.' })
  sessionToken!: string;

  @Field(() => String, {
    nullable: true,
    description: 'Where to send the payer now, once the session is final and has a redirect_url.',
  })
  redirectTo!: string | null;
}

@ObjectType({ description: 'A session as its payer may follow it (X-Session-Token).' })
export class CheckoutStatus {
  @Field(() => ID, { description: 'Session id.' })
  sessionId!: string;

  @Field(() => PaymentSessionStatus, { description: 'Current status.' })
  status!: PaymentSessionStatus;

  @Field(() => String, { nullable: true, description: 'Why it FAILED, when it did.' })
  failureCode!: string | null;

  @Field(() => String, {
    nullable: true,
    description: 'Where to send the payer, once the session is final and has a redirect_url.',
  })
  redirectTo!: string | null;

  @Field(() => Date, { nullable: true, description: 'When the payment completed (ISO 8601 UTC), for the receipt.' })
  completedAt!: Date | null;
}
