import { Field, ID, Int, ObjectType } from 'type-graphql';
import { AliasRouting } from '../alias/alias.type';

@ObjectType({ description: "The registry's answer before a customer's OTP is checked at their bank." })
export class OtpAttempt {
  @Field(() => ID, {
    nullable: true,
    description:
      'Set when the check may go ahead; give it back with settleOtpAttempt if the bank accepts the OTP (or never judges it).',
  })
  attemptId!: string | null;

  @Field(() => Int, {
    nullable: true,
    description:
      'Set when the client (or, from many clients, the customer) had too many refused OTPs lately: seconds until the next try.',
  })
  retryAfterSeconds!: number | null;

  @Field(() => Boolean, {
    nullable: true,
    description:
      "Set with attemptId: true when the same guess was already held for the customer (a double submit, a retry), so the check is the earlier call's; a caller that stops before the bank judges the guess must not give it back.",
  })
  repeated!: boolean | null;

  @Field(() => [ID], {
    description:
      "The checks of the call's `settle` it gave back. Another customer's is left out when a concurrent call held that customer's checks (skipped, not waited for): send it again (on the next call, or with settleOtpAttempts).",
  })
  settled!: string[];
}

@ObjectType({
  description:
    "A payer's routing and the OTP check taken for that same customer, in one call (platform services only: carries the bank customer reference).",
})
export class PayerOtpAttempt {
  @Field(() => AliasRouting, {
    description:
      "The payer's routing, as aliasRouting answers it; its bank's routing is a field of `bank` (banks subgraph).",
  })
  routing!: AliasRouting;

  @Field(() => OtpAttempt, {
    nullable: true,
    description: 'The check taken for the customer `routing` names; null when the alias is INACTIVE (nothing taken).',
  })
  attempt!: OtpAttempt | null;

  @Field(() => [ID], {
    description:
      "The checks of the call's `settle` it gave back (also when no check was taken); send the others again, as for OtpAttempt.settled.",
  })
  settled!: string[];
}
