import { Arg, Ctx, Field, ID, Int, Mutation, ObjectType, Resolver } from 'type-graphql';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { GatewayError } from '@gateway/kernel';
import type { OtpGuardService } from './otp-guard.service';

@ObjectType({ description: "The registry's answer before a customer's OTP is checked at their bank." })
export class OtpAttempt {
  @Field(() => ID, { nullable: true, description: 'Set when the check may go ahead; give it back with settleOtpAttempt if the bank accepts the OTP (or never judges it).' })
  attemptId!: string | null;

  @Field(() => Int, { nullable: true, description: 'Set when the client (or, from many clients, the customer) had too many refused OTPs lately: seconds until the next try.' })
  retryAfterSeconds!: number | null;
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
      @Arg('guess', { description: 'HMAC-SHA256 (hex) of the guessed OTP under the platform secret; never the OTP itself.' }) guess: string,
      @Arg('client', { description: "Who sent the OTP: the client's address as @gateway/kernel clientKeyOf keys it (an IPv6 /64), or unknown." }) client: string,
      @Ctx() context: SubgraphContext,
    ): Promise<OtpAttempt> {
      requirePrincipal(context, ['service']);
      if (!/^[0-9a-f]{64}$/.test(guess)) throw new GatewayError('VALIDATION_ERROR', 'guess: 64 lowercase hex characters');
      if (client.length === 0 || client.length > 64) throw new GatewayError('VALIDATION_ERROR', 'client: 1 to 64 characters');
      return service.take(context.em, bankHandle, customerRef, guess, client);
    }

    @Mutation(() => Boolean, { description: 'Gives back an OTP check the bank accepted or never judged (platform services only); a refused one is left to count.' })
    async settleOtpAttempt(
      // The customer as given to takeOtpAttempt: their held checks are one row, found by this key.
      @Arg('bankHandle', { description: "The customer's bank, as given to takeOtpAttempt." }) bankHandle: string,
      @Arg('customerRef', { description: 'bank_customer_ref, as given to takeOtpAttempt.' }) customerRef: string,
      @Arg('attemptId', () => ID, { description: 'From takeOtpAttempt.' }) attemptId: string,
      @Ctx() context: SubgraphContext,
    ): Promise<boolean> {
      requirePrincipal(context, ['service']);
      await service.giveBack(context.em, bankHandle, customerRef, attemptId);
      return true;
    }
  }
  return OtpGuardResolver;
}
