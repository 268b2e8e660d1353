import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { auditedBy, REASON_MAX } from '@gateway/audit';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import type { BankStatus } from './bank.entity';
import type { BankService } from './bank.service';
import { Bank, toBank } from './bank.type';

const EFFECT =
  'A suspended bank takes part in no new session, consent, payment order, mandate or charge (422 BANK_NOT_PARTICIPATING) and its bank key answers 403 BANK_SUSPENDED; ' +
  'movements in flight finish (its internal key keeps working for their callbacks) and settlement still pays its positions.';

const REASON_DESCRIPTION = `Why, in 1-${REASON_MAX} characters: kept in the audit entry (changes.reason).`;

/** Operator controls (API-CONTRACT): suspend and resume a bank, admin key only; both idempotent. */
export function createBankSuspensionResolver(service: BankService) {
  const setStatus = async (
    context: SubgraphContext,
    handle: string,
    status: BankStatus,
    reason: string | null | undefined,
  ): Promise<Bank> => {
    requirePrincipal(context, ['admin']);
    const bank = await service.setStatus(context.em, handle, status, auditedBy(context), reason);
    context.logger.info({ bank: handle, status }, 'bank status set by the operator');
    return toBank(bank);
  };

  @Resolver()
  class BankSuspensionResolver {
    @Mutation(() => Bank, {
      description: `Suspends a bank (operator); a suspended one is answered as it is. ${EFFECT} Errors: BANK_NOT_REGISTERED.`,
    })
    suspendBank(
      @Arg('handle', { description: 'Bank handle.' }) handle: string,
      @Arg('reason', () => String, { nullable: true, description: REASON_DESCRIPTION })
      reason: string | null | undefined,
      @Ctx() context: SubgraphContext,
    ): Promise<Bank> {
      return setStatus(context, handle, 'SUSPENDED', reason);
    }

    @Mutation(() => Bank, {
      description:
        'Resumes a suspended bank (operator): its bank key works again and it takes new work; an active one is answered as it is. Errors: BANK_NOT_REGISTERED.',
    })
    resumeBank(
      @Arg('handle', { description: 'Bank handle.' }) handle: string,
      @Arg('reason', () => String, { nullable: true, description: REASON_DESCRIPTION })
      reason: string | null | undefined,
      @Ctx() context: SubgraphContext,
    ): Promise<Bank> {
      return setStatus(context, handle, 'ACTIVE', reason);
    }
  }
  return BankSuspensionResolver;
}
