import { Arg, Ctx, FieldResolver, Mutation, Query, Resolver, Root } from 'type-graphql';
import { auditedBy } from '@gateway/audit';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { BankReference } from '../bank/bank.type';
import { GatewayError } from '@gateway/kernel';
import type { NetDebitService } from './net-debit.service';
import { BankPosition, NetDebitCapAnswer, NetDebitCapInput, toBankPosition } from './net-debit.type';

const MODE = {
  nullable: true,
  description: 'live (default) or test: the test world has caps and positions of its own (no cap unless set).',
};

const POSITIONS_DESCRIPTION =
  "A bank's net debit positions, per currency and world (admin for any bank; a bank key for its own, else FORBIDDEN). A bank with no cross-bank movement and no cap has none.";

/** Admin for any bank, a bank key for its own: everyone else is FORBIDDEN. */
async function positionsOf(service: NetDebitService, context: SubgraphContext, handle: string) {
  const reader = requirePrincipal(context, ['admin', 'bank']);
  if (reader.kind === 'bank' && reader.id !== handle)
    throw new GatewayError('FORBIDDEN', `a bank key reads its own positions only`);
  return (await service.positions(context.em, handle)).map(toBankPosition);
}

/**
 * Net debit caps (operator) and positions (operator, or the bank itself): the positions both as
 * `bankPositions(handle)`, one hop to payments, and as `Bank.positions` on the banks subgraph's
 * entity (API-CONTRACT), beside the bank's other fields.
 */
export function createNetDebitResolver(service: NetDebitService) {
  @Resolver()
  class NetDebitResolver {
    @Mutation(() => NetDebitCapAnswer, {
      description:
        "Sets a bank's net debit cap in a currency and world (admin, audited): a cross-bank movement whose debtor is the bank is refused 422 NET_DEBIT_CAP_EXCEEDED, before anything is debited, " +
        'when position + amount would pass it. A cap below the current position is allowed (belowPosition says so). ' +
        "With liquidityCover, a cap above the bank's settlement account balance is NET_DEBIT_CAP_ABOVE_LIQUIDITY. Errors: VALIDATION_ERROR, BANK_NOT_REGISTERED.",
    })
    async setNetDebitCap(
      @Arg('bankHandle', { description: 'The bank.' }) bankHandle: string,
      @Arg('currency', { description: 'ISO 4217: LYD, USD or EUR.' }) currency: string,
      @Arg('input', () => NetDebitCapInput, { description: 'The cap and its alert thresholds.' })
      input: NetDebitCapInput,
      @Arg('mode', () => String, MODE) mode: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<NetDebitCapAnswer> {
      requirePrincipal(context, ['admin']);
      const answer = await service.setCap(
        context.em,
        bankHandle,
        { ...input, currency, mode: mode ?? 'live' },
        auditedBy(context),
      );
      context.logger.warn(
        {
          bank: bankHandle,
          currency,
          mode: mode ?? 'live',
          net_debit_cap: input.netDebitCap,
          below: answer.belowPosition,
        },
        'net debit cap set by the operator',
      );
      return { ...toBankPosition(answer.position), belowPosition: answer.belowPosition };
    }

    @Mutation(() => Boolean, {
      description:
        "Removes a bank's net debit cap in a currency and world (admin, audited): no cap, today's behaviour. Idempotent.",
    })
    async removeNetDebitCap(
      @Arg('bankHandle', { description: 'The bank.' }) bankHandle: string,
      @Arg('currency', { description: 'ISO 4217: LYD, USD or EUR.' }) currency: string,
      @Arg('mode', () => String, MODE) mode: string | null,
      @Ctx() context: SubgraphContext,
    ): Promise<boolean> {
      requirePrincipal(context, ['admin']);
      await service.removeCap(context.em, bankHandle, { currency, mode: mode ?? 'live' }, auditedBy(context));
      return true;
    }

    @Query(() => [BankPosition], { description: POSITIONS_DESCRIPTION })
    async bankPositions(
      @Arg('handle', { description: 'The bank.' }) handle: string,
      @Ctx() context: SubgraphContext,
    ): Promise<BankPosition[]> {
      return positionsOf(service, context, handle);
    }
  }
  return NetDebitResolver;
}

/** `Bank.positions`: the same positions on the bank, for whoever may read them (null with FORBIDDEN otherwise). */
export function createBankPositionsResolver(service: NetDebitService) {
  @Resolver(() => BankReference)
  class BankPositionsResolver {
    @FieldResolver(() => [BankPosition], { nullable: true, description: POSITIONS_DESCRIPTION })
    async positions(@Root() bank: BankReference, @Ctx() context: SubgraphContext): Promise<BankPosition[]> {
      return positionsOf(service, context, bank.handle);
    }
  }
  return BankPositionsResolver;
}
