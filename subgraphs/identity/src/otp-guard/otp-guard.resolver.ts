import { Arg, Ctx, Field, ID, InputType, Int, Mutation, ObjectType, Resolver } from 'type-graphql';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { GatewayError } from '@gateway/kernel';
import { OTP_SETTLEMENTS_MAX, type OtpGuardService, type OtpSettlement } from './otp-guard.service';

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
}

@InputType({ description: 'An OTP check to give back: the customer as given to takeOtpAttempt, and the check.' })
export class OtpSettlementInput implements OtpSettlement {
  @Field({ description: "The customer's bank, as given to takeOtpAttempt." })
  bankHandle!: string;

  @Field({ description: 'bank_customer_ref, as given to takeOtpAttempt.' })
  customerRef!: string;

  @Field(() => ID, { description: 'From takeOtpAttempt.' })
  attemptId!: string;
}

function settlementsOf(settlements: OtpSettlementInput[] | null | undefined): OtpSettlement[] {
  const list = settlements ?? [];
  if (list.length > OTP_SETTLEMENTS_MAX)
    throw new GatewayError('VALIDATION_ERROR', `settle: at most ${OTP_SETTLEMENTS_MAX} checks`);
  return list;
}

export function createOtpGuardResolver(service: OtpGuardService) {
  @Resolver()
  class OtpGuardResolver {
    @Mutation(() => OtpAttempt, {
      description:
        "Takes one OTP check for a customer (platform services only), or refuses it when the client's recent refused OTPs for the customer reached the limit (5 in 15 minutes), or the customer's from all clients (30 in 5 minutes).",
    })
    async takeOtpAttempt(
      @Arg('bankHandle', { description: "The customer's bank." }) bankHandle: string,
      @Arg('customerRef', { description: 'bank_customer_ref, as the registry holds it.' }) customerRef: string,
      @Arg('guess', {
        description: 'HMAC-SHA256 (hex) of the guessed OTP under the platform secret; never the OTP itself.',
      })
      guess: string,
      @Arg('client', {
        description:
          "Who sent the OTP: the client's address as @gateway/kernel clientKeyOf keys it (an IPv6 /64), or unknown.",
      })
      client: string,
      @Arg('settle', () => [OtpSettlementInput], {
        nullable: true,
        description:
          'Checks the caller gives back first (accepted, or never judged, since its last call): they ride on this call instead of one of their own.',
      })
      settle: OtpSettlementInput[] | null,
      @Ctx() context: SubgraphContext,
    ): Promise<OtpAttempt> {
      requirePrincipal(context, ['service']);
      if (!/^[0-9a-f]{64}$/.test(guess))
        throw new GatewayError('VALIDATION_ERROR', 'guess: 64 lowercase hex characters');
      if (client.length === 0 || client.length > 64)
        throw new GatewayError('VALIDATION_ERROR', 'client: 1 to 64 characters');
      await service.giveBack(context.em, settlementsOf(settle));
      return service.take(context.em, bankHandle, customerRef, guess, client);
    }

    @Mutation(() => Boolean, {
      description:
        'Gives back OTP checks the bank accepted or never judged (platform services only), in one batch; refused ones are left to count.',
    })
    async settleOtpAttempts(
      @Arg('settlements', () => [OtpSettlementInput], {
        description: 'The checks, each with its customer as given to takeOtpAttempt.',
      })
      settlements: OtpSettlementInput[],
      @Ctx() context: SubgraphContext,
    ): Promise<boolean> {
      requirePrincipal(context, ['service']);
      await service.giveBack(context.em, settlementsOf(settlements));
      return true;
    }
  }
  return OtpGuardResolver;
}
