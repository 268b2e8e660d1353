import { Arg, Args, Ctx, Mutation, Resolver } from 'type-graphql';
import { otpGuardKeyPrefix, requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { GatewayError } from '@gateway/kernel';
import { untracked } from '@gateway/db';
import { parseRoutingLookup } from '../alias/alias.rules';
import { routingNotFound, routingRowQuery } from '../alias/alias.service';
import { AliasEntity } from '../alias/alias.entity';
import { toRouting } from '../alias/alias.type';
import { OtpSettlementInput, PayerOtpAttemptArgs } from './otp-guard.input';
import {
  OTP_SETTLEMENTS_MAX,
  type OtpAttemptVerdict,
  type OtpGuardService,
  type OtpSettlement,
} from './otp-guard.service';
import { OtpAttempt, PayerOtpAttempt } from './otp-guard.type';

function settlementsOf(settlements: OtpSettlementInput[] | null | undefined): OtpSettlement[] {
  const list = settlements ?? [];
  if (list.length > OTP_SETTLEMENTS_MAX)
    throw new GatewayError('VALIDATION_ERROR', `settle: at most ${OTP_SETTLEMENTS_MAX} checks`);
  return list;
}

/** What every take checks of its guess and client before anything is written. */
function requireGuess(guess: string, client: string): void {
  if (!/^[0-9a-f]{64}$/.test(guess)) throw new GatewayError('VALIDATION_ERROR', 'guess: 64 lowercase hex characters');
  if (client.length === 0 || client.length > 64)
    throw new GatewayError('VALIDATION_ERROR', 'client: 1 to 64 characters');
}

const toAttempt = (verdict: OtpAttemptVerdict, settled: readonly string[]): OtpAttempt => ({
  attemptId: verdict.attemptId,
  retryAfterSeconds: verdict.retryAfterSeconds,
  repeated: verdict.repeated ?? null,
  settled: [...settled],
});

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
          'Checks the caller gives back first (accepted, or never judged, since its last call): they ride on this call instead of one of their own; `settled` answers which were given back.',
      })
      settle: OtpSettlementInput[] | null,
      @Ctx() context: SubgraphContext,
    ): Promise<OtpAttempt> {
      requirePrincipal(context, ['service']);
      requireGuess(guess, client);
      const taken = await service.take(context.em, bankHandle, customerRef, guess, client, settlementsOf(settle));
      return toAttempt(taken, taken.settled ?? []);
    }

    @Mutation(() => PayerOtpAttempt, {
      description:
        "A payer's authorization in one call (platform services only): the payer's routing, as aliasRouting answers it (with the bank's routing as a field of its bank), and one OTP check taken for the customer that routing names, under the limits of takeOtpAttempt; the customer's test-world checks count apart. An INACTIVE alias is returned with no check taken. " +
        'Errors: ALIAS_NOT_FOUND, VALIDATION_ERROR.',
    })
    async takePayerOtpAttempt(
      @Args() args: PayerOtpAttemptArgs,
      @Ctx() context: SubgraphContext,
    ): Promise<PayerOtpAttempt> {
      requirePrincipal(context, ['service']);
      const lookup = parseRoutingLookup(args);
      requireGuess(args.guess, args.client);
      const settle = settlementsOf(args.settle);
      const prefix = otpGuardKeyPrefix(args.livemode ? 'live' : 'test');
      const taken = await service.takeForPayer(
        context.em,
        routingRowQuery(lookup),
        prefix,
        args.guess,
        args.client,
        settle,
      );
      if (!taken) throw routingNotFound(args, lookup);
      return {
        routing: toRouting(untracked(context.em, AliasEntity, taken.alias)),
        attempt: taken.verdict && toAttempt(taken.verdict, taken.settled),
        settled: taken.settled,
      };
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
