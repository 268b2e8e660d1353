import { Arg, Ctx, Directive, ID, Mutation, Query, Resolver } from 'type-graphql';
import { CORE_CALL_COST, requirePrincipal, type SubgraphContext } from '@gateway/federation';
import { sessionNotFound } from '../session/session.service';
import { AuthorizeCheckoutInput } from './checkout.input';
import type { CheckoutService } from './checkout.service';
import { CheckoutAuthorization, CheckoutSession, CheckoutStatus } from './checkout.type';

export function createCheckoutResolver(service: CheckoutService) {
  @Resolver(() => CheckoutSession)
  class CheckoutResolver {
    @Query(() => CheckoutSession, {
      description: 'What the checkout page shows (public: the session id is the capability). Error: SESSION_NOT_FOUND.',
    })
    async checkoutSession(
      @Arg('id', () => ID, { description: 'Session id (ops_…).' }) id: string,
      @Ctx() context: SubgraphContext,
    ): Promise<CheckoutSession> {
      return service.view(context.em, id);
    }

    @Directive(CORE_CALL_COST)
    @Mutation(() => CheckoutAuthorization, {
      description:
        "The payer authorizes the payment (public; POST /pay/{session_id}/authorize): payer resolved in the identity registry, OTP verified by the payer's bank, then the debit and credit. " +
        'The same authorization sent again answers the current status while the session is not final, the final answer once it is. ' +
        'Errors: OTP_INVALID (the third one fails the session), RATE_LIMITED (five refused OTPs for the customer from this client within 15 minutes, or thirty from all clients within 5), ALIAS_NOT_FOUND, ALIAS_INACTIVE, SESSION_NOT_FOUND, SESSION_EXPIRED, ' +
        'SESSION_ALREADY_COMPLETED, SESSION_FAILED, SESSION_IN_PROGRESS (another authorization holds the session), INSUFFICIENT_FUNDS, CBS_TIMEOUT, CBS_ERROR, VALIDATION_ERROR, ' +
        "MERCHANT_SUSPENDED (its merchant is suspended by the operator), BANK_NOT_PARTICIPATING (the payer's or the payee's bank is suspended), " +
        "CURRENCY_MISMATCH (the payer's or the payee's account is held in another currency: nothing is debited and the session stays PENDING).",
    })
    async authorizeCheckout(
      @Arg('sessionId', () => ID, { description: 'Session id (ops_…).' }) sessionId: string,
      @Arg('input', { description: 'The payer and the OTP from their bank.' }) input: AuthorizeCheckoutInput,
      @Ctx() context: SubgraphContext,
    ): Promise<CheckoutAuthorization> {
      return service.authorize(context.em, sessionId, input, context.principal.ip ?? null, context.requestId);
    }

    @Query(() => CheckoutStatus, {
      description:
        "The session's status for its payer (X-Session-Token of that session; GET /pay/{session_id}/status).",
    })
    async checkoutStatus(
      @Arg('sessionId', () => ID, { description: 'Session id (ops_…), the one the session token was issued for.' })
      sessionId: string,
      @Ctx() context: SubgraphContext,
    ): Promise<CheckoutStatus> {
      const principal = requirePrincipal(context, ['session']);
      if (principal.id !== sessionId) throw sessionNotFound(sessionId);
      return service.status(context.em, sessionId);
    }
  }
  return CheckoutResolver;
}
