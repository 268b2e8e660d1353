import { ArgsType, Field, ID, InputType } from 'type-graphql';
import type { OtpSettlement } from './otp-guard.service';

@InputType({ description: 'An OTP check to give back: the customer as given to takeOtpAttempt, and the check.' })
export class OtpSettlementInput implements OtpSettlement {
  @Field({ description: "The customer's bank, as given to takeOtpAttempt." })
  bankHandle!: string;

  @Field({ description: 'bank_customer_ref, as given to takeOtpAttempt.' })
  customerRef!: string;

  @Field(() => ID, { description: 'From takeOtpAttempt.' })
  attemptId!: string;
}

/** Arguments of takePayerOtpAttempt: the payer as aliasRouting takes them (exactly one of alias or iban), the world, the guess. */
@ArgsType()
export class PayerOtpAttemptArgs {
  @Field(() => String, {
    nullable: true,
    description: 'handle, or handle@bank_handle to require the account to be at that bank.',
  })
  alias?: string | null;

  @Field(() => String, { nullable: true, description: 'IBAN, with or without spaces.' })
  iban?: string | null;

  @Field({
    description:
      "The world of what the OTP confirms: false for a test object, whose checks count apart from live ones (under the customer's test key).",
  })
  livemode!: boolean;

  @Field({ description: 'HMAC-SHA256 (hex) of the guessed OTP under the platform secret; never the OTP itself.' })
  guess!: string;

  @Field({
    description:
      "Who sent the OTP: the client's address as @gateway/kernel clientKeyOf keys it (an IPv6 /64), or unknown.",
  })
  client!: string;

  @Field(() => [OtpSettlementInput], {
    nullable: true,
    description:
      'Checks the caller gives back first (accepted, or never judged, since its last call): they ride on this call instead of one of their own; `settled` answers which were given back.',
  })
  settle?: OtpSettlementInput[] | null;
}
