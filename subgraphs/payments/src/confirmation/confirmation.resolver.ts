import { Arg, Ctx, Mutation, Resolver } from 'type-graphql';
import { requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { CreditConfirmationInput } from './confirmation.input';
import type { ConfirmationService } from './confirmation.service';
import { CreditConfirmationReceipt } from './confirmation.type';

export function createConfirmationResolver(service: ConfirmationService) {
  @Resolver(() => CreditConfirmationReceipt)
  class ConfirmationResolver {
    @Mutation(() => CreditConfirmationReceipt, {
      description:
        "A creditor bank's core confirms a rail credit (its X-Service-Internal-Key; POST /service/callbacks/v1/payment/credit-confirmed): the session COMPLETES. " +
        'Deduplicated by payment_reference. Errors: SESSION_NOT_FOUND (unknown, or not a credit at this bank), VALIDATION_ERROR (amount, currency or IBAN do not match: refused and logged), SESSION_ALREADY_COMPLETED.',
    })
    async confirmRailCredit(
      @Arg('input', { description: "The creditor bank's confirmation of a rail credit." })
      input: CreditConfirmationInput,
      @Ctx() context: SubgraphContext,
    ): Promise<CreditConfirmationReceipt> {
      const bank = requirePrincipal(context, ['bank_core']);
      // A bank's sandbox core (its key scoped ['test']) confirms test movements; its live core, live ones.
      return service.confirm(context.em, bank.id, input, !bank.scopes?.includes('test'));
    }
  }
  return ConfirmationResolver;
}
